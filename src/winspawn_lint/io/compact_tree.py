"""Syntax trees whose nodes keep their fields in slots: about a third of the memory of the trees ``ast.parse``
builds.

An ``ast`` node keeps its fields and positions in a dict of its own (some 270 bytes of a node's 320).  A run
over a large repository holds many modules' trees at once (a fact of the analysis names the nodes it was found
at), so most of its memory is these dicts.  :func:`parse` builds the same tree with every node an instance of a
subclass of its ``ast`` class whose fields are slots: ``isinstance`` answers as before, and so does everything
that reads or writes fields (``ast.walk``, ``ast.NodeVisitor``, ``compile``); ``type(node) is ast.Name`` does
not, so code that dispatches on a node's class asks :func:`node_class`, and ``ast.dump``, which leaves out an
optional field that is None by reading the field's default on the class (where a compact class has its slot),
is given a :func:`plain` copy.  Trees from elsewhere (flake8's, nodes the
analysis makes) are ordinary ``ast`` trees: both kinds of node may meet in one tree.
"""

from __future__ import annotations

import ast
import copy
import io
import re
import tokenize
from typing import Optional, Union

#: How deep below the root nodes are made compact; deeper ones stay as ``ast.parse`` made them (the recursion is
#: bounded by construction, with room under the interpreter's limit for the caller's frames: each level may take
#: two frames, the function's and its list comprehension's).
MAX_DEPTH = 200

_AST = ast.AST
#: each ``ast`` class met -> (its compact class, the fields that may hold nodes: not the positions); made when a
#: node of the class is first met (making all of them up front costs every run, a one-file one too, milliseconds)
_COMPACT: dict[type, tuple[type, tuple[str, ...]]] = {}
#: each compact class -> its ``ast`` class
_KIND: dict[type, type] = {}


def _compact_class(cls: type) -> tuple[type, tuple[str, ...]]:
    known = _COMPACT.get(cls)
    if known is not None:
        return known
    fields, positions = tuple(cls._fields), tuple(cls._attributes)

    def __reduce__(node: ast.AST) -> tuple:
        # (a copy or a pickle is an ordinary node: the compact class is made at run time, and by name pickle
        # would find the ``ast`` class and give it an empty dict; the fields go to its constructor, which from
        # Python 3.13 warns when one is missing)
        return (cls, tuple(getattr(node, name, None) for name in fields),
                {name: getattr(node, name) for name in positions if hasattr(node, name)})

    compact = type(cls.__name__, (cls,), {"__slots__": fields + positions, "__module__": cls.__module__,
                                          "__qualname__": cls.__qualname__, "__reduce__": __reduce__})
    known = _COMPACT.setdefault(cls, (compact, fields))
    _KIND[known[0]] = cls
    return known


def node_class(node: ast.AST) -> type:
    """The ``ast`` class of *node* (``ast.Name`` for a compact ``Name``)."""
    cls = type(node)
    return _KIND.get(cls, cls)


def plain(node: ast.AST) -> ast.AST:
    """A copy of *node* and of every node below it, all ordinary ``ast`` nodes."""
    return copy.deepcopy(node)


def node_classes(*classes: type) -> frozenset[type]:
    """*classes* and their compact classes: a set to test ``type(node) in`` where a lookup per node counts."""
    return frozenset(classes) | frozenset(_compact_class(cls)[0] for cls in classes)


#: ``_LINES[n] == n``: one int object per line number, which every node on the line shares (above 256 each node's
#: ``lineno`` and ``end_lineno`` are ints of their own, 28 bytes each: a third of a compact tree); as long as the
#: longest source parsed so far, up to :data:`MAX_SHARED_LINES` (2.4 MB)
_LINES: list[int] = []
MAX_SHARED_LINES = 1 << 16


def parse(source: Union[str, bytes], filename: str = "<unknown>") -> ast.Module:
    """``ast.parse(source, filename)`` with compact nodes (raises what ``ast.parse`` raises).  Code written for
    Python 3.6 or older that names something ``async`` or ``await`` (PyTorch 0.3's ``x.cuda(async=True)``, in
    many research repositories' data loading) is read as that Python read it: its workers fail on Windows and macOS
    as any other's."""
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError:
        tree = _as_python_3_6(source, filename)
        if tree is None:
            raise
    return _compacted(tree, source)


#: ``async`` or ``await`` where they may be names, not keywords (Python 3.6 allowed both)
_OLD_KEYWORD_NAMES = re.compile(r"\b(?:async|await)\b(?!\s+(?:def|with|for)\b)")
#: what may follow ``await`` used as a name (the keyword is followed by the expression it awaits)
_AFTER_A_NAME = frozenset({"=", ")", ",", ":", "]", "}", ".", "(", "[", ";"})


def parses_only_as_python_3_6(text: str) -> bool:
    """Whether *text* parses only with its ``async``/``await`` names read as Python 3.6 read them: no fix of it
    can be checked to compile."""
    if not _OLD_KEYWORD_NAMES.search(text):
        return False
    try:
        ast.parse(text)
    except SyntaxError:
        return True
    return False


def _as_python_3_6(source: Union[str, bytes], filename: str) -> Optional[ast.Module]:
    """The tree of a text that names something ``async`` or ``await`` as Python 3.6 allowed (a parameter, an
    attribute, a keyword argument, a variable), read with each such name spelt with a capital (``Async``: the same
    length, so every position stays where it was; every Python from 3.7 on rejects the names, 3.13 even under
    ``feature_version``); None when the text names neither, or does not parse so either."""
    text = source if isinstance(source, str) else source.decode("utf-8", "replace")
    if not _OLD_KEYWORD_NAMES.search(text):
        return None
    lines = text.splitlines(keepends=True)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    renamed = False
    for before, token, after in zip([None, *tokens], tokens, [*tokens[1:], None]):
        if token.type != tokenize.NAME or token.string not in ("async", "await"):
            continue
        follows = after.string if after is not None and after.type in (tokenize.OP, tokenize.NAME) else ""
        if before is not None and before.string == "." or (
                follows not in ("def", "with", "for") if token.string == "async"
                else not follows or follows in _AFTER_A_NAME):
            row, column = token.start
            line = lines[row - 1]
            lines[row - 1] = line[:column] + token.string.capitalize() + line[column + len(token.string):]
            renamed = True
    if not renamed:
        return None
    try:
        return ast.parse("".join(lines), filename=filename)
    except SyntaxError:
        return None


def _compacted(tree: ast.Module, source: Union[str, bytes]) -> ast.Module:
    if isinstance(source, str):
        lines = source.count("\n") + source.count("\r") + 2
    else:
        lines = source.count(b"\n") + source.count(b"\r") + 2
    if len(_LINES) < lines:
        _LINES.extend(range(len(_LINES), min(lines, MAX_SHARED_LINES)))
    return _compact(tree, 0)


def _compact(node: ast.AST, depth: int) -> ast.AST:
    fields = node.__dict__
    if not fields or depth > MAX_DEPTH:
        return node  # (operators and contexts: one shared node each, with nothing to keep)
    compact, names = _COMPACT.get(type(node)) or _compact_class(type(node))
    depth += 1
    for name in names:
        value = fields[name]
        if type(value) is list:
            if value:
                fields[name] = [_compact(item, depth) if isinstance(item, _AST) else item for item in value]
        elif isinstance(value, _AST):
            fields[name] = _compact(value, depth)
    line = fields.get("lineno")
    if line is not None:
        try:
            fields["lineno"] = _LINES[line]
            end = fields.get("end_lineno")
            if end is not None:
                fields["end_lineno"] = _LINES[end]
        except IndexError:
            pass  # (a line past those shared keeps its own int)
    return compact(**fields)
