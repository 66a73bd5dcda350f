"""Send a file that an object keeps open as its name and position, and reopen it on unpickling (WSP301).

A spawned worker receives a ``Dataset`` (or a ``Process``/``Pool`` argument) by pickling, and an open
file cannot be pickled.  For ``self.X = open(path, "r" or "rb", ...)`` in ``__init__``, this codemod adds
to the class::

    def __getstate__(self):
        state = self.__dict__.copy()
        file = state["X"]
        state["X"] = (file.name, file.encoding, file.errors, None if file.closed else file.tell())
        return state

    def __setstate__(self, state):
        name, encoding, errors, position = state["X"]
        state["X"] = file = open(name, encoding=encoding, errors=errors)
        ...  # seek to the position (a text file's ``tell()`` cookie is valid on a reopened file of the
             # same encoding: measured), or close it again if it was closed

so every unpickled copy reads through a handle of its own.  Literal ``mode``, ``buffering``, ``encoding``,
``errors`` and ``newline`` arguments are repeated in the reopening call; an encoding or error handler that
is not a literal is taken from the file object when it is pickled.  UNSAFE: the copy has a new handle
(what it reads is the file as it is when it is unpickled, and writes to the parent's handle are not
shared), and code that pickles the object (``copy.deepcopy`` too) now gets a working copy instead of a
``TypeError``.

Declined, with a note (the finding stays): a mode that writes (reopening would truncate the file or write
twice), arguments the reopen cannot repeat (a ``newline``, ``buffering`` or ``mode`` that is not a literal,
an ``opener``, ``closefd``, ``*args``), a file descriptor instead of a path, a file opened elsewhere than
in the assignment, an attribute also assigned or closed elsewhere in the module, a class that already
controls its pickling (``__getstate__``, ``__setstate__``, ``__reduce__``, ``__reduce_ex__``,
``__getnewargs__``, ``__slots__``), a decorated class, a base class defined elsewhere (other than
torch's ``Dataset`` classes), and a class that also holds something a reopen cannot restore (a lock, a
lambda: a ``__getstate__`` would hide those findings).  Other resources (h5py, lmdb, sqlite, locks)
get no fix.

Run on its own::

    python -m libcst.tool codemod -x winspawn_lint.fix.commands.ReopenFile train.py
"""

from __future__ import annotations

import ast
import textwrap
from typing import Optional

from .. import rules
from ..records import Record
from ._base import Codemod, Edit, line_ref, syntax_tree
from ._tree import find_node, import_names, parents, qualified_name
from .lines import Lines, indent_step, indented

#: ``open()``'s parameters, in order
_PARAMETERS = ("file", "mode", "buffering", "encoding", "errors", "newline", "closefd", "opener")
#: methods and attributes by which a class controls its own pickling
_PICKLING_HOOKS = ("__getstate__", "__setstate__", "__reduce__", "__reduce_ex__", "__getnewargs__",
                   "__getnewargs_ex__", "__slots__")
#: base classes defined elsewhere that leave pickling to ``object`` (no hook of their own)
_PLAIN_BASES = frozenset({
    "object", "builtins.object",
    "torch.utils.data.Dataset", "torch.utils.data.IterableDataset", "torch.utils.data.dataset.Dataset",
    "torch.utils.data.dataset.IterableDataset",
})
_COMMENT = ("An open file cannot be pickled: send {what} instead, and reopen {it} on unpickling (each process "
            "then reads through a handle of its own).")


class Decline(Exception):
    """Why a file attribute is not fixed (the finding stays, with the reason in the note)."""


class _File(Record):
    __slots__ = ("attr", "key", "callee", "arguments", "sent")

    def __init__(self, attr: str, key: str, callee: str, arguments: list[str], sent: list[str]) -> None:
        self.attr = attr
        self.key = key  # the attribute's key in ``__dict__`` (private names are mangled)
        self.callee = callee  # how the original spells ``open``
        self.arguments = arguments  # the reopening call's arguments after the name, as source text
        self.sent = sent  # what travels besides the name and position: "encoding", "errors"


class ReopenFile(Codemod):
    DESCRIPTION = "Pickle files that objects keep open by name and position, and reopen them on unpickling."
    TITLE = "Pickle the file by name and position, and reopen it in the worker"
    FIXES = (rules.WSP301,)

    @staticmethod
    def wants(finding) -> bool:
        return "open" in finding.fix_hint

    @staticmethod
    def unit(finding) -> object:
        # One __getstate__/__setstate__ pair per class: with it the check says nothing more of the class's files.
        where = finding.fix_hint.get("class")
        return (where["line"], where["col"]) if where else None

    def edit(self, text: str) -> list[Edit]:
        module = syntax_tree(text)
        parent = parents(module)
        by_class: dict[int, tuple[ast.ClassDef, list]] = {}
        for finding in self.findings_for(text):
            hint = finding.fix_hint
            node = find_node(module, (ast.ClassDef,), hint["class"]["line"], hint["class"]["col"])
            if node is None:
                self.note(finding, "the class that opens the file was not found")
                continue
            by_class.setdefault(id(node), (node, []))[1].append(finding)
        lines = Lines(text)
        step = indent_step(module, lines)
        uses = _Uses(module) if by_class else None
        for node, findings in by_class.values():
            try:
                owner = findings[0].fix_hint.get("owner")
                owner = find_node(module, (ast.ClassDef,), owner["line"], owner["col"]) if owner else None
                self._check_class(node, owner or node, module, findings[0].fix_hint.get("others", ()))
                files = [self._file(f, node, module, lines, parent, uses) for f in findings]
            except Decline as why:
                for finding in findings:
                    self.note(finding, str(why))
                continue
            files = list({f.key: f for f in files}.values())
            indent = lines.indent(node.body[0].lineno)
            methods = _methods(files, len(indent.expandtabs()), step, self.line_length, _quote(node, lines))
            # At the end of the class body (before the comment rows that close it), each after a blank row.
            lines.insert(lines.last(node.body[-1]) + 1,
                         "".join("\n" + indented(method, indent) for method in methods))
            self.fixes(findings)
        return lines.edits()

    # -- what may be fixed ------------------------------------------------------------------------------
    def _check_class(self, node: ast.ClassDef, owner: ast.ClassDef, module: ast.Module, others) -> None:
        """``node``: the class whose ``__init__`` opens the file (the methods go there); ``owner``: the class
        whose instances travel (``node`` or a subclass of it)."""
        if others:
            held = ", ".join(f"`self.{name}`" for name in others)
            raise Decline(f"`{node.name}` also holds {held}, which reopening cannot restore (a `__getstate__` "
                          "for the file would hide that finding)")
        for cls in {id(node): node, id(owner): owner}.values():
            if cls.decorator_list:
                raise Decline(f"`{cls.name}` is decorated (the decorator may change how it pickles)")
            if cls.keywords:
                raise Decline(f"`{cls.name}` has a metaclass or class keywords")
        imports = import_names(module)
        classes = {c.name: c for c in module.body if isinstance(c, ast.ClassDef)}
        todo, seen = [owner, node], set()
        while todo:  # the classes and their bases in this module; each class is looked at once
            current = todo.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            hook = _hook(current)
            if hook:
                raise Decline(f"`{current.name}` already defines `{hook}`")
            for base in current.bases:
                target = base.value if isinstance(base, ast.Subscript) else base  # Dataset[int]
                if isinstance(target, ast.Name) and target.id in classes and target.id not in imports:
                    todo.append(classes[target.id])
                elif qualified_name(target, imports) not in _PLAIN_BASES:
                    raise Decline(f"its base `{ast.unparse(base)}` is defined elsewhere and may pickle its own "
                                  "state")

    def _file(self, finding, node: ast.ClassDef, module: ast.Module, lines: Lines, parent, uses: "_Uses") -> _File:
        hint = finding.fix_hint["open"]
        call = find_node(module, (ast.Call,), hint["line"], hint["col"])
        assignment = parent.get(call)
        attr = _self_attribute(assignment, call)
        if attr is None:
            raise Decline(f"the file is opened at {line_ref(hint['line'])}, not in a `self.<name> = open(...)` "
                          "statement")
        _bound_once(uses, node, attr, assignment)
        bound = _bind(call)
        path = bound.get("file")
        if path is None or _is_descriptor(path):
            raise Decline("it opens a file descriptor, not a path (a descriptor number means nothing in "
                          "another process)")
        mode = bound.get("mode")
        if mode is not None and not _is_literal(mode, str):
            raise Decline("its mode is not a literal")
        mode_text = mode.value if mode is not None else "r"
        if set(mode_text) & set("wax+"):
            raise Decline(f"it is opened for writing (mode {mode_text!r}): reopening would truncate the file "
                          "or write twice")
        if not set(mode_text) <= set("rbt") or mode_text.count("r") != 1:
            raise Decline(f"mode {mode_text!r} is not a plain read mode")
        for name in ("buffering", "newline"):
            if name in bound and not _is_literal(bound[name], int if name == "buffering" else (str, type(None))):
                raise Decline(f"its `{name}` is not a literal (the reopening call could not repeat it)")
        if "opener" in bound and not _is_literal(bound["opener"], type(None)):
            raise Decline("it passes an `opener` (the reopening call could not repeat it)")
        if "closefd" in bound and not (isinstance(bound["closefd"], ast.Constant) and bound["closefd"].value is True):
            raise Decline("it passes `closefd`")
        binary = "b" in mode_text
        arguments = [] if mode is None else [_source(lines, mode)]
        sent = []
        for name in ("buffering", "encoding", "errors", "newline"):
            given = bound.get(name)
            if given is not None and _is_literal(given, (str, int, type(None))):
                arguments.append(f"{name}={_source(lines, given)}")
            elif name in ("encoding", "errors") and not binary:
                arguments.append(f"{name}={name}")
                sent.append(name)
        key = f"_{node.name.lstrip('_')}{attr}" if attr.startswith("__") and not attr.endswith("__") else attr
        return _File(attr, key, _source(lines, call.func), arguments, sent)


def _hook(node: ast.ClassDef) -> Optional[str]:
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name in _PICKLING_HOOKS:
            return statement.name
        targets = (statement.targets if isinstance(statement, ast.Assign)
                   else [statement.target] if isinstance(statement, ast.AnnAssign) else [])
        for target in targets:
            if isinstance(target, ast.Name) and target.id in _PICKLING_HOOKS:
                return target.id
    return None


def _self_attribute(assignment, call: ast.Call) -> Optional[str]:
    """``X`` when ``assignment`` is ``self.X = call`` (one target, on the method's first parameter)."""
    if isinstance(assignment, ast.Assign) and len(assignment.targets) == 1:
        target = assignment.targets[0]
    elif isinstance(assignment, ast.AnnAssign):
        target = assignment.target
    else:
        return None
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and assignment.value is call:
        return target.attr
    return None


class _Uses:
    """Where a module stores into and closes attributes, and which class's ``self`` each name is: one walk of the
    module for every file a fix looks at (a walk of the module per file made the check-time plan of a 500-line
    script with a dozen such classes cost 2 s)."""

    def __init__(self, module: ast.Module) -> None:
        #: id(a name) -> ids of the classes of whose methods it is the first parameter
        self.selves: dict[int, set[int]] = {}
        #: attribute name -> where it is assigned or deleted, in ``ast.walk`` order
        self.stores: dict[str, list[ast.Attribute]] = {}
        #: attribute name -> (the call or ``with``, the attribute it closes), in ``ast.walk`` order
        self.closes: dict[str, list[tuple[ast.AST, ast.Attribute]]] = {}
        for found in ast.walk(module):
            if isinstance(found, ast.ClassDef):
                for method in found.body:
                    if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.args.args:
                        first = method.args.args[0].arg
                        for name in ast.walk(method):
                            if isinstance(name, ast.Name) and name.id == first:
                                self.selves.setdefault(id(name), set()).add(id(found))
            elif isinstance(found, ast.Attribute) and not isinstance(found.ctx, ast.Load):
                self.stores.setdefault(found.attr, []).append(found)
            elif (isinstance(found, ast.Call) and isinstance(found.func, ast.Attribute)
                    and found.func.attr in ("close", "__exit__") and isinstance(found.func.value, ast.Attribute)):
                self.closes.setdefault(found.func.value.attr, []).append((found, found.func.value))
            elif isinstance(found, (ast.With, ast.AsyncWith)):
                for item in found.items:
                    expr = item.context_expr
                    closed = expr.args[0] if isinstance(expr, ast.Call) and expr.args else expr  # closing(self.f)
                    if isinstance(closed, ast.Attribute):
                        self.closes.setdefault(closed.attr, []).append((found, closed))

    def of_another_class(self, value: ast.AST, node: ast.ClassDef) -> bool:
        """Whether ``value`` is the ``self`` of a method of a class other than ``node``."""
        return any(owner != id(node) for owner in self.selves.get(id(value), ()))


def _bound_once(uses: _Uses, node: ast.ClassDef, attr: str, assignment: ast.stmt) -> None:
    """Raise Decline when ``attr`` is assigned, deleted or closed anywhere but in ``assignment`` (another
    class's methods may have an attribute of the same name on their own ``self``)."""
    targets = {id(t) for t in getattr(assignment, "targets", [getattr(assignment, "target", None)])}
    for found in uses.stores.get(attr, ()):
        if id(found) not in targets and not uses.of_another_class(found.value, node):
            raise Decline(f"`{attr}` is also assigned or deleted at {line_ref(found.lineno)}")
    for found, closed in uses.closes.get(attr, ()):
        if not uses.of_another_class(closed.value, node):
            raise Decline(f"the file is closed at {line_ref(found.lineno)} (the reopened copy would differ from the "
                          "closed one; a file read once and closed is better not kept)")


def _bind(call: ast.Call) -> dict[str, ast.expr]:
    """``open()``'s parameters -> the argument expressions of ``call``; Decline when that cannot be known."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        raise Decline("its arguments are unpacked with `*` or `**`")
    if len(call.args) > len(_PARAMETERS) or any(k.arg not in _PARAMETERS for k in call.keywords):
        raise Decline("its arguments are not those of `open()`")
    bound = dict(zip(_PARAMETERS, call.args))
    bound.update({k.arg: k.value for k in call.keywords})
    return bound


def _is_literal(expr: ast.expr, kinds) -> bool:
    return isinstance(expr, ast.Constant) and isinstance(expr.value, kinds) and not isinstance(expr.value, bool)


def _is_descriptor(expr: ast.expr) -> bool:
    """An ``int`` literal, ``x.fileno()``, ``os.open(...)``, ``os.dup(...)``: a descriptor, not a path."""
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, int)
    if isinstance(expr, ast.Call) and isinstance(expr.func, (ast.Attribute, ast.Name)):
        name = expr.func.attr if isinstance(expr.func, ast.Attribute) else expr.func.id
        return name in ("fileno", "open", "dup", "dup2", "memfd_create", "pipe")
    return False


def _source(lines: Lines, node: ast.AST) -> str:
    """``ast.get_source_segment``, which splits the whole text on each call (a pure-Python loop): a row's part
    from the rows split once."""
    if node.lineno == node.end_lineno:
        return lines.segment(node).lstrip(" ")
    return ast.get_source_segment(lines.text, node)


def _quote(node: ast.AST, lines: Lines) -> str:
    """The quote the class's strings use most (double when as many)."""
    counts = {'"': 0, "'": 0}
    for found in ast.walk(node):
        if isinstance(found, ast.Constant) and isinstance(found.value, str):
            segment = lines.segment(found).lstrip(" ").lstrip("rRbBuUfF")
            if segment[:1] in counts:
                counts[segment[0]] += 1
    return "'" if counts["'"] > counts['"'] else '"'


def _quoted(value: str, quote: str) -> str:
    return f"{quote}{value}{quote}"  # an identifier: nothing to escape


# -- the methods ----------------------------------------------------------------------------------------
def _methods(files: list[_File], column: int, step: str, limit: int, quote: str) -> list[str]:
    """``__getstate__`` and ``__setstate__`` for ``files``, at column 0, for a class body at ``column``."""
    body_column = column + len(step)
    what = " and ".join(f"`self.{f.attr}`" for f in files)
    comment = textwrap.wrap(_COMMENT.format(what=f"the name and position of {what}",
                                            it="them" if len(files) > 1 else "it"),
                            max(limit - body_column - 2, 40))
    key = {file.key: _quoted(file.key, quote) for file in files}
    get = ["state = self.__dict__.copy()"]
    put = []
    for file in files:
        fields = ["name", *file.sent, "position"]
        values = ["file.name", *(f"file.{name}" for name in file.sent), "None if file.closed else file.tell()"]
        item = f"state[{key[file.key]}]"
        get.append(f"file = {item}")
        get.extend(_assignment(f"{item} = ", values, body_column, step, limit))
        put.append(f"{', '.join(fields)} = {item}")
        put.extend(_assignment(f"{item} = file = {file.callee}", ["name", *file.arguments],
                               body_column, step, limit))
        put += ["if position is None:  # closed when it was pickled", f"{step}file.close()",
                "else:", f"{step}file.seek(position)"]
    get.append("return state")
    put.append("self.__dict__.update(state)")
    getstate = ["def __getstate__(self):", *(f"{step}# {line}" for line in comment), *(step + line for line in get)]
    setstate = ["def __setstate__(self, state):", *(step + line for line in put)]
    return ["\n".join(getstate) + "\n", "\n".join(setstate) + "\n"]


def _assignment(prefix: str, values: list[str], column: int, step: str, limit: int) -> list[str]:
    """``prefix(values)`` on one line; else the values on lines aligned with the opening bracket; else one per
    line with a hanging indent: within ``limit`` for a statement at ``column``."""
    one = f"{prefix}({', '.join(values)})"
    if column + len(one) <= limit:
        return [one]
    align = " " * (len(prefix) + 1)
    lines, current, first = [], f"{prefix}(", True
    for index, value in enumerate(values):
        piece = value + (")" if index == len(values) - 1 else ",")
        candidate = current + piece if first else f"{current} {piece}"
        if first or column + len(candidate) <= limit:
            current, first = candidate, False
        else:
            lines.append(current)
            current = align + piece
    lines.append(current)
    if all(column + len(line) <= limit for line in lines):
        return lines
    return [f"{prefix}(", *(f"{step}{value}," for value in values), ")"]
