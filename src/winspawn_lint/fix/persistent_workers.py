"""Keep a per-epoch ``DataLoader``'s workers alive across epochs (WSP902): ``persistent_workers=True``.

``DataLoader(ds, num_workers=2)`` iterated once per epoch starts two new workers every epoch; under spawn each
re-imports the script.  The fix adds ``persistent_workers=True`` to the call the finding's hint points at (or
turns an explicit ``persistent_workers=False`` into ``True``).  When the worker count is a name or attribute that
may be 0 (``args.workers``), the value is ``args.workers > 0``: ``persistent_workers=True`` with no workers raises
``ValueError``.  A call that unpacks ``**kwargs`` (which may hold it) or whose count is any other expression is left
with a note.  UNSAFE: persistent workers keep their state (a dataset's caches, the position logic of an
``IterableDataset``, memory) from one epoch to the next.

:func:`epoch_loaders` finds the same shape without the check (the guard wrap, which moves a training loop under the
guard and so reveals it, adds the keyword too).

Run on its own::

    python -m libcst.tool codemod -x winspawn_lint.fix.commands.PersistentWorkers train.py
"""

from __future__ import annotations

import ast
from typing import Optional

from .. import rules
from ..rules import FixSafety
from ._base import Codemod, Edit, syntax_tree
from ._tree import find_node, import_names, qualified_name
from .lines import Lines

_DATALOADER = "torch.utils.data.DataLoader"
_KEPT_STATE = "persistent workers keep their dataset's state from one epoch to the next: an unsafe fix"
_ITERATE_THROUGH = frozenset({"enumerate", "iter", "tqdm", "reversed", "zip"})
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


class PersistentWorkers(Codemod):
    DESCRIPTION = "Keep the workers of a DataLoader iterated once per epoch alive across epochs."
    TITLE = "Keep the workers alive across epochs (`persistent_workers=True`)"
    FIXES = (rules.WSP902,)

    @staticmethod
    def wants(finding) -> bool:
        return "loader" in finding.fix_hint

    def edit(self, text: str) -> list[Edit]:
        module = syntax_tree(text)
        lines = Lines(text)
        constants = int_constants(module)
        done: set[int] = set()
        for finding in self.findings_for(text):
            hint = finding.fix_hint["loader"]
            call = find_node(module, (ast.Call,), hint["line"], hint["col"])
            if call is None:
                self.note(finding, "the DataLoader call was not found")
                continue
            if id(call) in done:
                self.fixes([finding], FixSafety.UNSAFE, _KEPT_STATE)
                continue
            value, why = workers_value(call, constants)
            if value is None:
                self.note(finding, why)
                continue
            given = next((k for k in call.keywords if k.arg == "persistent_workers"), None)
            if given is not None:
                lines.replace_node(given.value, value)
            else:
                lines.replace_span(*keyword_insertion(lines, call, f"persistent_workers={value}"))
            done.add(id(call))
            self.fixes([finding], FixSafety.UNSAFE, _KEPT_STATE)
        return lines.edits()


def workers_value(call: ast.Call, constants: dict[str, object]) -> tuple[Optional[str], str]:
    """What to give ``persistent_workers`` in ``call`` (``True``, or ``<count> > 0`` for a count that may be 0), or
    (None, why not)."""
    keywords = {k.arg: k.value for k in call.keywords}
    if None in keywords:
        return None, "the call unpacks `**` arguments, which may set `persistent_workers` or the worker count"
    workers = keywords.get("num_workers", call.args[5] if len(call.args) > 5 else None)
    if workers is None:
        return None, "the worker count was not found in the call"
    count = workers.value if isinstance(workers, ast.Constant) else \
        constants.get(workers.id) if isinstance(workers, ast.Name) else None
    if isinstance(count, int) and not isinstance(count, bool):
        return ("True", "") if count > 0 else (None, "the loader has no workers")
    if isinstance(workers, (ast.Name, ast.Attribute)):
        return f"{ast.unparse(workers)} > 0", ""
    return None, "the worker count is an expression (`persistent_workers=True` with 0 workers raises ValueError)"


def int_constants(module: ast.Module) -> dict[str, object]:
    """Module-level names bound once, to a literal (``NUM_WORKERS = 2``)."""
    bound: dict[str, list] = {}
    for stmt in module.body:
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    bound.setdefault(target.id, []).append(stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            bound.setdefault(stmt.target.id, []).append(stmt.value)
    return {name: values[0].value for name, values in bound.items()
            if len(values) == 1 and isinstance(values[0], ast.Constant)}


def keyword_insertion(lines: Lines, call: ast.Call, keyword: str) -> tuple[int, int, str]:
    """The edit (start, end, text) that adds ``keyword`` as the call's last argument, as its arguments are laid
    out: on a row of its own after a trailing comma, else after ``, `` before the closing parenthesis."""
    arguments = sorted([*call.args, *call.keywords], key=lambda node: (node.lineno, node.col_offset))
    close = lines.at(call.end_lineno, call.end_col_offset) - 1  # the `)`
    if not arguments:
        return close, close, keyword
    last = arguments[-1]
    end = lines.at(last.end_lineno, last.end_col_offset)
    if lines.text[end:close].lstrip(" \t").startswith(",") and last.end_lineno < call.end_lineno:
        row = lines.row(last.end_lineno)  # one argument a row, and a trailing comma: a row of its own
        at = lines.offset(last.end_lineno) + len(row.rstrip("\r\n"))  # after the row's comment, if any
        return at, at, f"\n{lines.indent(last.lineno)}{keyword},"
    return end, end, f", {keyword}"


def epoch_loaders(module: ast.Module, statements: list[ast.stmt]) -> list[tuple[ast.Call, str, str]]:
    """``(call, name, value)`` for each ``name = DataLoader(...)`` among ``statements`` (module-level) that has
    workers and no ``persistent_workers`` and that a loop of the module iterates inside another loop; ``value``: see
    :func:`workers_value`."""
    imports = import_names(module)
    constants = int_constants(module)
    found = []
    for stmt in statements:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, ast.Call) and qualified_name(stmt.value.func, imports) == _DATALOADER):
            continue
        call, name = stmt.value, stmt.targets[0].id
        if any(k.arg == "persistent_workers" for k in call.keywords):
            continue
        value, _ = workers_value(call, constants)
        if value is not None and _iterated_per_epoch(module, name):
            found.append((call, name, value))
    return found


def _iterated_per_epoch(module: ast.Module, name: str) -> bool:
    """Whether a ``for`` loop over ``name`` (or ``enumerate(name)``, ``tqdm(name)``...) runs inside another loop."""
    stack: list[tuple[ast.AST, int]] = [(module, 0)]
    while stack:  # each node is pushed once, by its parent
        node, loops = stack.pop()
        if isinstance(node, (ast.For, ast.AsyncFor)) and loops and _iterates(node.iter, name):
            return True
        inner = loops + isinstance(node, _LOOPS)
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))
    return False


def _iterates(expr: ast.expr, name: str) -> bool:
    for _ in range(4):  # enumerate(tqdm(loader))
        if isinstance(expr, ast.Name):
            return expr.id == name
        if not (isinstance(expr, ast.Call) and expr.args and isinstance(expr.func, (ast.Name, ast.Attribute))):
            return False
        callee = expr.func.id if isinstance(expr.func, ast.Name) else expr.func.attr
        if callee not in _ITERATE_THROUGH:
            return False
        expr = expr.args[0]
    return False
