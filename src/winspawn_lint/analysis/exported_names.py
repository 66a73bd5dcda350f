"""Which of a module's names may lead to a worker API: the import graph told name by name.

The import graph (:class:`.importers.ImportGraph`) says a file reaches a worker API when a name it imports may
lead to one.  Read file by file, every name of a file that reaches one led to one, whatever it was: in diffusers,
``utils/testing_utils.py`` starts a ``Process`` in one function, and every test importing ``torch_device`` from
it reached a worker API, and so did every test importing a mixin from a module that imports ``torch_device``
(835 files analysed, 459 more than need be).

Here a module's syntax tree is read in pieces (:func:`read_pieces`): a top-level statement (an import, one per
name), or a part of one at module level (an ``if`` test, a ``for`` target and iterable, a ``with`` item, an
``except`` clause; their bodies are pieces too).  A piece may lead to an API when a word in it may name one (an
identifier, attribute, keyword or identifier-like string the prefilter looks for), when it imports a name that
may lead to one (the graph answers), or when it reads a module name that such a piece binds
(:func:`reaching_names`).  Each module name such a piece binds may lead to an API, and so may one it stores into
(``CACHE[key] = Pool(2)``, ``REGISTRY.append(...)``, ``setattr(obj, ...)``, ``global POOL``): a name is left
out only when every piece that binds or fills it is.  A value flows from what a piece reads to what it binds;
the test of an ``if`` passes none to its body.  Names bound inside a function, a class body or a comprehension
are theirs (unless declared ``global``).  Whatever is not read here keeps the file-level answer (every name of
the module leads to an API): a star import, ``globals()``, ``vars()``, ``exec``/``eval``, ``sys.modules``, a
module ``__getattr__``, a tree that does not parse.  Parsed, never imported or run.
"""

from __future__ import annotations

import ast
from typing import Callable, Iterator, NamedTuple, Optional

from ..io.compact_tree import node_class
from ..records import Value

#: Built-in functions whose call writes into the module's namespace where this reading cannot follow it.
_OPAQUE_CALLS = frozenset({"globals", "vars", "exec", "eval"})
#: Calls that import a module by name at run time (a literal name is an import, as the index reads it).
_DYNAMIC_IMPORTS = frozenset({"__import__", "import_module"})
#: Methods that store their arguments into the object they are called on (a module-level list, dict or set).
_FILLING_METHODS = frozenset({"append", "extend", "insert", "update", "setdefault", "add", "put", "register",
                              "__setitem__", "appendleft", "extendleft"})
#: Compound statements nested this deep at module level are read as one piece.
MAX_NESTING = 16

_COMPREHENSIONS = frozenset({ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp})
_SCOPES = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda})
_MODULE, _COMPREHENSION, _LOCAL = range(3)
_TRY = tuple(getattr(ast, name) for name in ("Try", "TryStar") if hasattr(ast, name))
_MATCH = tuple(getattr(ast, name) for name in ("Match",) if hasattr(ast, name))
#: Pattern nodes of ``match`` that bind a name.
_PATTERN_NAMES = frozenset(getattr(ast, name) for name in ("MatchAs", "MatchStar", "MatchMapping")
                           if hasattr(ast, name))


class Piece(NamedTuple):
    """A piece of a module as read (:func:`_read_piece`)."""

    #: whether a word in it may name an API
    direct: bool
    #: the module's names it binds
    bound: frozenset
    #: the words it reads
    words: frozenset
    #: the names it may store into
    filled: frozenset
    #: the imports it makes, as the project index writes them (:data:`.importers.Import`)
    imports: tuple


class Pieces(Value):
    """A module read in pieces (:func:`read_pieces`)."""

    __slots__ = ("defined", "pieces")

    def __init__(self, defined: frozenset[str], pieces: tuple[Piece, ...]) -> None:
        #: the names its pieces bind outside import statements (a name only an import binds is followed through the
        #: import by the graph)
        self.defined = defined
        self.pieces = pieces


def read_pieces(text: str, api_word: Callable[[str], bool], filename: str = "<unknown>") -> Optional[Pieces]:
    """The module *text* in pieces (*api_word*: whether an identifier may name an API); None when it is read
    only as a whole."""
    try:
        tree = ast.parse(text, filename)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    pieces = []
    defined: set[str] = set()
    for nodes, also_bound in _pieces(tree.body, 0):
        read = _read_piece(nodes, also_bound, api_word)
        if read is None:
            return None
        pieces.append(read)
        if not (len(nodes) == 1 and isinstance(nodes[0], (ast.Import, ast.ImportFrom))):
            defined |= read.bound
    return Pieces(frozenset(defined), tuple(pieces))


def reaching_names(read: Pieces, import_reaches: Callable[[tuple], bool]) -> frozenset[str]:
    """The names of the module *read* that may lead to a worker API, its imports answered by *import_reaches*
    (of an import as the project index writes it, :data:`.importers.Import`)."""
    answers: dict[tuple, bool] = {}

    def direct(piece: Piece) -> bool:
        if piece.direct:
            return True
        for entry in piece.imports:
            if entry not in answers:
                answers[entry] = import_reaches(entry)
            if answers[entry]:
                return True
        return False

    dirty: set[str] = set()
    waiting = []
    for piece in read.pieces:
        if direct(piece):
            dirty |= piece.bound | (piece.filled & read.defined)  # (another module's object filled here: not followed)
        else:
            waiting.append(piece)
    # Each round marks a piece or ends: at most one round per piece (the set only grows).
    for _ in range(len(waiting) + 1):
        marked = [piece for piece in waiting if piece.words & dirty]
        if not marked:
            break
        for piece in marked:
            dirty |= piece.bound | (piece.filled & read.defined)
        done = {id(piece) for piece in marked}
        waiting = [piece for piece in waiting if id(piece) not in done]
    return frozenset(dirty)


def _pieces(body: list[ast.stmt], depth: int) -> Iterator[tuple[list[ast.AST], tuple[str, ...]]]:
    """The module's code in pieces that each bind names from what they read: a simple statement (an import, one
    per name), a definition, and the parts of a compound statement at module level (``if`` test, ``for`` target
    and iterable, ``with`` items, ``except`` clause), whose bodies are pieces of their own.  A value flows from
    what a piece reads to what it binds; a test that decides which body runs passes none to it.  (nodes, names
    bound beside them)"""
    for stmt in body:
        if depth >= MAX_NESTING:
            yield [stmt], ()
        elif isinstance(stmt, (ast.If, ast.While)):
            yield [stmt.test], ()
            yield from _pieces(stmt.body + stmt.orelse, depth + 1)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            yield [stmt.target, stmt.iter], ()
            yield from _pieces(stmt.body + stmt.orelse, depth + 1)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            yield list(stmt.items), ()
            yield from _pieces(stmt.body, depth + 1)
        elif isinstance(stmt, _TRY):
            for handler in stmt.handlers:
                yield ([handler.type] if handler.type is not None else []), ((handler.name,) if handler.name else ())
                yield from _pieces(handler.body, depth + 1)
            yield from _pieces(stmt.body + stmt.orelse + stmt.finalbody, depth + 1)
        elif isinstance(stmt, _MATCH):
            yield [stmt.subject], ()
            for case in stmt.cases:
                yield [case.pattern, *([case.guard] if case.guard is not None else [])], ()
                yield from _pieces(case.body, depth + 1)
        elif isinstance(stmt, ast.ImportFrom) and len(stmt.names) > 1:
            # (each name on its own: the one that leads to an API does not take the others with it)
            for alias in stmt.names:
                yield [ast.ImportFrom(module=stmt.module, names=[alias], level=stmt.level)], ()
        elif isinstance(stmt, ast.Import) and len(stmt.names) > 1:
            for alias in stmt.names:
                yield [ast.Import(names=[alias])], ()
        else:
            yield [stmt], ()


def _read_piece(nodes: list[ast.AST], also_bound: tuple[str, ...], api_word: Callable[[str], bool]
                ) -> Optional[Piece]:
    """One piece as read (:data:`Piece`); None for a piece this reading cannot follow."""
    imports: dict[tuple, None] = {}
    bound: set[str] = set(also_bound)
    words: set[str] = set()
    filled: set[str] = set()
    # (node, where: _MODULE, _COMPREHENSION (a walrus there binds the module's name) or _LOCAL)
    stack: list[tuple[ast.AST, int]] = [(node, _MODULE) for node in nodes]
    while stack:
        node, where = stack.pop()
        kind = node_class(node)
        if kind is ast.Name:
            if type(node.ctx) is ast.Load:
                words.add(node.id)
            elif where == _MODULE:
                bound.add(node.id)
            continue
        if kind is ast.Constant:
            if type(node.value) is str and node.value.isidentifier():
                words.add(node.value)
            continue
        if kind in _SCOPES:
            if kind is not ast.Lambda:
                if where == _MODULE:
                    bound.add(node.name)
                    if node.name == "__getattr__":
                        return None  # (a module __getattr__ may give any name)
            outer = [*getattr(node, "decorator_list", ()), *getattr(node, "bases", ()),
                     *getattr(node, "keywords", ()), *(_defaults(node.args) if kind is not ast.ClassDef else ())]
            stack.extend((child, where) for child in outer)
            inner = node.body if type(node.body) is list else [node.body]
            returns = getattr(node, "returns", None)
            stack.extend((child, _LOCAL) for child in (*inner, *((returns,) if returns is not None else ())))
            continue
        if kind in _COMPREHENSIONS:
            inside = _COMPREHENSION if where == _MODULE else where
            stack.extend((child, inside) for child in ast.iter_child_nodes(node))
            continue
        if kind is ast.NamedExpr:
            if where != _LOCAL:
                bound.add(node.target.id)
            stack.append((node.value, where))
            continue
        if kind is ast.Attribute:
            words.add(node.attr)
            if node.attr == "modules" and isinstance(node.value, ast.Name) and node.value.id == "sys":
                return None
            if type(node.ctx) is not ast.Load:
                filled |= _root(node)
        elif kind is ast.Subscript:
            if type(node.ctx) is not ast.Load:
                filled |= _root(node)
        elif kind is ast.Call:
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if isinstance(func, ast.Name) and name in _OPAQUE_CALLS:
                return None
            if name in _DYNAMIC_IMPORTS:
                # (a literal name is an import as the index reads it; a name made at run time is not followed
                # there either)
                first = node.args[0] if node.args else None
                if isinstance(first, ast.Constant) and type(first.value) is str:
                    imports[(first.value, "", "")] = None
            elif name == "setattr" and node.args:
                filled |= _root(node.args[0])
            elif isinstance(func, ast.Attribute) and name in _FILLING_METHODS:
                filled |= _root(func.value)
        elif kind is ast.keyword:
            if node.arg:
                words.add(node.arg)
        elif kind is ast.Global or kind is ast.Nonlocal:
            bound.update(node.names)
        elif kind is ast.Import:
            for alias in node.names:
                words.update(alias.name.split("."))
                as_name = alias.asname or alias.name.split(".")[0]
                if where == _MODULE:
                    bound.add(as_name)
                imports[(alias.name, "", as_name)] = None
            continue
        elif kind is ast.ImportFrom:
            module = "." * node.level + (node.module or "")
            for alias in node.names:
                if alias.name == "*":
                    return None
                words.add(alias.name)
                if where == _MODULE:
                    bound.add(alias.asname or alias.name)
                imports[(module, alias.name, alias.asname or alias.name)] = None
            continue
        elif kind in _PATTERN_NAMES:
            name = getattr(node, "name", None) or getattr(node, "rest", None)
            if name and where == _MODULE:
                bound.add(name)
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                stack.extend((item, where) for item in value if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST) and value._fields:  # (not a shared ctx or operator)
                stack.append((value, where))
    direct = any(api_word(word) for word in words | bound)
    return Piece(direct, frozenset(bound), frozenset(words), frozenset(filled), tuple(imports))


def _defaults(arguments: ast.arguments) -> list[ast.AST]:
    """What a function's signature evaluates where it is defined: defaults and annotations."""
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
             *([arguments.vararg] if arguments.vararg else []), *([arguments.kwarg] if arguments.kwarg else [])]
    return [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None),
            *(a.annotation for a in every if a.annotation is not None)]


def _root(node: ast.expr) -> set[str]:
    """The module-level name an attribute or item chain starts from (``CACHE`` of ``CACHE.a[k]``), if any."""
    for _ in range(64):
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        else:
            break
    return {node.id} if isinstance(node, ast.Name) else set()
