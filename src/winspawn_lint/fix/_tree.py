"""The ``ast`` facts the hoisting codemods need on top of :mod:`..analysis.scopes`: where a node sits, which
names a definition takes from the functions around it (and whether it can move to module level at all), and
names that clash with nothing."""

from __future__ import annotations

import ast
import bisect
import builtins
import functools
import itertools
import re
import keyword
import unicodedata
from typing import Iterator, Optional

from ..analysis.guards import is_main_guard
from ..analysis.scopes import COMPREHENSIONS, ScopeTree
from ..io.compact_tree import node_class
from ..records import Record

_BUILTIN_NAMES = frozenset(dir(builtins))


class CannotHoist(Exception):
    """Why a definition cannot move to module level (the fix is skipped, the finding stays)."""


class Captured(Record):
    """What a hoisted function takes, as leading parameters, from the functions around it: for each name it
    read there, the name itself, or (when it only reads attributes of it) each attribute chain it reads."""

    __slots__ = ("params", "values", "replaced", "whole")

    def __init__(self, params: Optional[list[str]] = None, values: Optional[list[str]] = None,
                 replaced: Optional[list[tuple[ast.Attribute, str]]] = None, whole: Optional[list[str]] = None) -> None:
        #: the new leading parameters, in order
        self.params = params if params is not None else []
        #: what the ``functools.partial`` binds to each, as source text (``vae.config.scaling_factor``)
        self.values = values if values is not None else []
        #: (an attribute chain node in the definition, the parameter that stands for it)
        self.replaced = replaced if replaced is not None else []
        #: names sent whole (what is pickled with the function), and what of each needs the whole object
        self.whole = whole if whole is not None else []


_MAX_CHAINS = 3  # more attribute chains of one name than this: the name goes whole (a parameter each would not read)


def captured(scopes: ScopeTree, definition: ast.AST, free: list[str], taken: set[str],
             attributes: bool = True) -> Captured:
    """The parameters that stand for ``free`` (what ``definition`` reads from the functions around it, see
    :func:`enclosing_free_variables`): a name whose every use in it reads an attribute (``vae.config.scaling_factor``
    and nothing else of ``vae``) is replaced by the attribute chains it reads, so that only they are pickled with
    the function; one it calls, passes, assigns an attribute of, or reads through more than :data:`_MAX_CHAINS`
    chains goes whole.  ``taken``: names the definition uses otherwise (a parameter must not shadow one);
    ``attributes``: False to send every name whole."""
    out = Captured()
    own = {id(scope) for scope in scopes.scope_of[definition].walk()}
    parent: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(definition):
        for child in ast.iter_child_nodes(node):
            parent[child] = node
    uses: dict[str, list[ast.Name]] = {name: [] for name in free}
    for node in ast.walk(definition):
        if isinstance(node, ast.Name) and node.id in uses and isinstance(node.ctx, ast.Load):
            uses[node.id].append(node)
    used = set(taken) | set(free)
    for name in free:
        shadowed = any(name in scope.bindings for scope in scopes.scope_of[definition].walk()
                       if id(scope) in own and scope is not scopes.scope_of[definition].parent)
        chains = None if shadowed or not uses[name] or not attributes else [_chain(use, parent) for use in uses[name]]
        texts = sorted({ast.unparse(chain) for chain in chains}) if chains and all(chains) else []
        if not texts or len(texts) > _MAX_CHAINS:
            out.params.append(name)
            out.values.append(name)
            out.whole.append(name)
            continue
        params = {}
        for text in texts:
            parts = text.split(".")
            candidates = [parts[-1], "_".join(parts), "_".join(parts) + "_value"]
            param = next((c for c in candidates if c.isidentifier() and not keyword.iskeyword(c) and c not in used
                          and c not in _BUILTIN_NAMES), None)
            if param is None:
                break
            used.add(param)
            params[text] = param
        else:
            for text in texts:
                out.params.append(params[text])
                out.values.append(text)
            out.replaced.extend((chain, params[ast.unparse(chain)]) for chain in chains)
            continue
        out.params.append(name)
        out.values.append(name)
        out.whole.append(name)
    return out


def _chain(use: ast.Name, parent: dict) -> Optional[ast.Attribute]:
    """The attribute chain ``use`` is the root of and reads (``vae.config.scaling_factor``; ``model.encoder`` for
    ``model.encoder.forward(x)``, a method call needs its object), or None when it needs the object itself."""
    chain: ast.AST = use
    while isinstance(parent.get(chain), ast.Attribute) and parent[chain].value is chain:
        chain = parent[chain]
    holder = parent.get(chain)
    if isinstance(holder, ast.Call) and holder.func is chain and isinstance(chain, ast.Attribute):
        chain = chain.value  # a method call: its object
    if chain is use or not isinstance(chain, ast.Attribute) or not isinstance(chain.ctx, ast.Load):
        return None
    return chain


def used_names(definition: ast.AST) -> set[str]:
    """Every name a definition reads, binds or takes as a parameter (a new parameter must not shadow one)."""
    out: set[str] = set()
    for node in ast.walk(definition):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
    return out


def whole_note(names: list[str]) -> str:
    """What a hoisted function sends its workers of the names it captured whole."""
    listed = ", ".join(f"`{name}`" for name in names)
    return f"{listed} {'goes' if len(names) == 1 else 'go'} to the workers with the function, pickled whole"


def needs_partial(names: list[str]) -> str:
    """Why a safe run leaves a definition that reads ``names`` from the enclosing function where it is."""
    listed = ", ".join(f"`{name}`" for name in names)
    return (f"it reads {listed} from the enclosing function: binding {'them' if len(names) > 1 else 'it'} with "
            "functools.partial is an unsafe fix (use --unsafe-fixes)")


def parents(tree: ast.Module) -> dict[ast.AST, ast.AST]:
    """The parent of each top-level statement and of each node on the way down to a node :func:`find_node`
    returned (the rest of the module is not walked: the hoists ask about a few nodes of large scripts).  Shared:
    do not change it; :func:`find_node` adds to it."""
    return _index(tree).parent


class _Index:
    """The parents :func:`find_node` has seen in one module."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.parent: dict[ast.AST, ast.AST] = {statement: tree for statement in tree.body}
        # The rows each top-level statement spans, its decorators included (the statements do not overlap).
        self.spans = [(_first_row(s), s.end_lineno, s) for s in tree.body]

    def statement_at(self, line: int) -> Optional[ast.stmt]:
        at = bisect.bisect_right(self.spans, (line, float("inf"))) - 1
        return self.spans[at][2] if at >= 0 and self.spans[at][1] >= line else None

    def descend(self, statement: ast.stmt, kinds: tuple, line: int, col: int) -> Optional[ast.AST]:
        """The outermost node of one of ``kinds`` in ``statement`` starting at (``line``, ``col``), found by going
        down only into the nodes whose span holds that position (and those without one: arguments,
        comprehensions); the parents on the way are recorded."""
        target = (line, col)
        parent = self.parent
        todo: list[ast.AST] = [statement]
        while todo:  # each node is pushed once, by its parent
            node = todo.pop()
            if isinstance(node, kinds) and (node.lineno, node.col_offset) == target:
                return node
            for child in ast.iter_child_nodes(node):
                end = getattr(child, "end_lineno", None)
                if end is not None and not ((_first_row(child), 0) <= target <= (end, child.end_col_offset)):
                    continue
                parent[child] = node
                todo.append(child)
        # Not where the positions said (they are not always right inside f-strings before Python 3.12): walk it.
        for node in ast.walk(statement):
            for child in ast.iter_child_nodes(node):
                parent[child] = node
        return next((node for node in ast.walk(statement)
                     if isinstance(node, kinds) and (node.lineno, node.col_offset) == target), None)


def _first_row(node: ast.AST) -> int:
    return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])


@functools.lru_cache(maxsize=4)
def _index(tree: ast.Module) -> _Index:
    return _Index(tree)


_STARTS = (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def forget_index() -> None:
    _index.cache_clear()


def ancestors(node: ast.AST, parent: dict[ast.AST, ast.AST]) -> Iterator[ast.AST]:
    while node in parent:  # ends at the module: every node has one parent and the tree has no cycle
        node = parent[node]
        yield node


def top_level_statement(node: ast.AST, parent: dict[ast.AST, ast.AST]) -> ast.stmt:
    return next(a for a in [node, *ancestors(node, parent)] if isinstance(parent.get(a), ast.Module))


def enclosing_free_variables(scopes: ScopeTree, definition: ast.AST) -> list[str]:
    """The names ``definition`` (a nested function or lambda) reads from the functions around it, in
    first-read order: the leading arguments of the ``functools.partial`` that replaces it.

    Raises CannotHoist when one may not be bound yet where the definition runs, or when moving it would
    change what a name refers to (``nonlocal``, zero-argument ``super()``).
    """
    if scopes.declares_nonlocal(definition):
        raise CannotHoist("it declares `nonlocal`")
    if any(name in scope.reads for scope in scopes.scope_of[definition].walk() for name in ("super", "__class__")):
        raise CannotHoist("it uses zero-argument `super()`")
    reads = scopes.enclosing_reads(definition)
    start = (definition.lineno, definition.col_offset)
    for name, (scope, _) in sorted(reads.items()):
        if not any(where < start for where in scope.bindings[name]):
            raise CannotHoist(f"`{name}` is assigned only after it in the enclosing function")
    # A global that only the main guard binds does not exist in a spawned worker (it imports the module as
    # `__mp_main__`): it is passed along like a local.
    guarded = guard_only_names(scopes)
    order = {name: first for name, (_, first) in reads.items()}
    for scope in scopes.scope_of[definition].walk():
        for name, where in scope.reads.items():
            if name in guarded and scopes.resolve(scope, name) is scopes.module:
                order[name] = min(min(where), order.get(name, min(where)))
    return sorted(order, key=lambda name: order[name])


def guard_only_names(scopes: ScopeTree) -> set[str]:
    """Module-level names bound only inside ``if __name__ == "__main__":`` blocks."""
    spans = [((s.lineno, s.col_offset), (s.end_lineno or s.lineno, s.end_col_offset or 0))
             for s in scopes.module.node.body if isinstance(s, ast.If) and is_main_guard(s.test)]
    if not spans:
        return set()
    return {name for name, where in scopes.module.bindings.items()
            if all(any(start <= w <= end for start, end in spans) for w in where)}


def is_plain_default(expr: ast.expr) -> bool:
    """A default value that means the same evaluated once at module level: no calls, no side effects."""
    return not any(isinstance(node, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr, *COMPREHENSIONS,
                                     ast.Lambda)) for node in ast.walk(expr))


def module_names(tree: ast.Module, text: str) -> Names:
    """Every identifier used anywhere in the module ``text`` parses to (to choose names that clash with nothing)."""
    return Names(tree, text)


class Names:
    """The identifiers of a module, worked out only when asked about a word the text holds: a name a fix makes up
    (``_collate_fn``, ``main``) is seldom in it, and then the tree is not walked."""

    def __init__(self, tree: ast.Module, text: str) -> None:
        # The parser reads identifiers in NFKC form: a name the text does not spell that way is not one of them.
        self.tree, self.text = tree, text if text.isascii() else unicodedata.normalize("NFKC", text)
        self.added: set[str] = set()
        self.found: Optional[frozenset[str]] = None

    def __contains__(self, name: str) -> bool:
        if name in self.added:
            return True
        if self.found is None:
            if name not in self.text or not re.search(rf"\b{re.escape(name)}\b", self.text):
                return False
            self.found = _identifiers(self.tree)
        return name in self.found

    def add(self, name: str) -> None:
        self.added.add(name)

    def __len__(self) -> int:
        """At least as many as the identifiers (each takes a character of the text): a bound for unique_name."""
        return len(self.text) + len(self.added)


def _identifiers(tree: ast.Module) -> frozenset[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        kind = node_class(node)
        if kind is ast.Name:
            names.add(node.id)
        elif kind is ast.arg:
            names.add(node.arg)
        elif kind in _STARTS:
            if kind is not ast.Lambda:
                names.add(node.name)
        elif kind is ast.Import or kind is ast.ImportFrom:
            for alias in node.names:
                names.add((alias.asname or alias.name).split(".")[0])
    return frozenset(names)


def unique_name(base: str, taken: Names) -> str:
    """``base``, or ``base_N`` with the smallest N that is free (at most len(taken) + 1 tries)."""
    candidates = itertools.chain([base], (f"{base}_{n}" for n in range(2, len(taken) + 3)))
    name = next(c for c in candidates if c not in _BUILTIN_NAMES and c not in taken)
    taken.add(name)
    return name


def import_names(module: ast.Module) -> dict[str, str]:
    """Top-level import bindings: local name -> what it stands for (``Dataset`` -> ``torch.utils.data.Dataset``,
    ``tud`` -> ``torch.utils.data``)."""
    out: dict[str, str] = {}
    for statement in module.body:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                out[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(statement, ast.ImportFrom) and statement.module and not statement.level:
            for alias in statement.names:
                out[alias.asname or alias.name] = f"{statement.module}.{alias.name}"
    return out


def qualified_name(expr: ast.expr, imports: dict[str, str]) -> Optional[str]:
    """``torch.utils.data.DataLoader`` for ``DataLoader``, ``tud.DataLoader`` or ``torch.utils.data.DataLoader``
    (``imports``: :func:`import_names`); None for an expression that is not a dotted name."""
    parts = []
    while isinstance(expr, ast.Attribute):  # one step per attribute of a finite expression
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    return ".".join([imports.get(expr.id, expr.id), *reversed(parts)])


def find_node(tree: ast.Module, kinds: tuple, line: int, col: int) -> Optional[ast.AST]:
    """The outermost node of one of ``kinds`` starting at (line, ast byte col); its parents are recorded (see
    :func:`parents`)."""
    index = _index(tree)
    statement = index.statement_at(line)
    return None if statement is None else index.descend(statement, kinds, line, col)
