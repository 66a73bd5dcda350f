"""``--fix`` for notebooks: the fixer on a notebook's module, its output put back into the cells, and (an unsafe
fix, WSP206's) the definitions a worker needs moved into a module next to the notebook.

The fixer sees a notebook as :mod:`winspawn_lint.io.notebook` presents it, one module of its code cells.  A function
defined in a notebook is pickled by reference to the kernel's ``__main__``, which a spawned worker cannot import:
so in a notebook the hoists of WSP201-WSP203 (a lambda, a local function or class made a top-level definition) are
half a fix, which the move of definitions into ``<stem>_defs.py`` completes (:func:`plan_move`).  With
``--unsafe-fixes`` both are made, the hoists first; a hoisted definition that cannot move (it reads a notebook
variable) makes its hoist declined.  Nothing is written here: the driver writes the notebook and the new module.
"""

from __future__ import annotations

import ast
import difflib
import functools
import os
import re
from typing import Callable, Optional

from .. import rules
from ..analysis.scopes import ScopeTree
from ..finding import Finding
from ..io.notebook import (Notebook, NotebookFixError, cell_diff, is_cell_marker, loads, masked_rows, rewrite,
                           split_fixed, to_cells)
from ..io.source import split_lines, split_rows
from ..records import Record
from . import Check, FixOutcome, fix_text
from ._base import DEFINITIONS


class NotebookFix(Record):
    """What ``--fix`` made of a notebook."""

    __slots__ = ("raw", "diff_lines", "new_module", "fixed", "fixed_count", "remaining", "note")

    def __init__(self, raw: Optional[str] = None, diff_lines: Optional[list[str]] = None,
                 new_module: Optional[tuple[str, str]] = None, fixed: Optional[list[Finding]] = None,
                 fixed_count: int = 0, remaining: Optional[list[Finding]] = None, note: Optional[str] = None) -> None:
        #: the notebook's new text; ``None`` when nothing changed
        self.raw = raw
        #: ``--diff`` output: the new module (if definitions moved) and the changed cells, one hunk group per cell
        self.diff_lines = diff_lines if diff_lines is not None else []
        #: (path, text) of the module the definitions moved to, to be created with the notebook's rewrite
        self.new_module = new_module
        self.fixed = fixed if fixed is not None else []
        self.fixed_count = fixed_count
        #: the findings of the new notebook, in its cells
        self.remaining = remaining if remaining is not None else []
        self.note = note


def fix_notebook(notebook: Notebook, findings: list[Finding], path: str, display: str, check: Check, *,
                 unsafe: bool, line_length: int, move_definitions: bool, exists: Callable[[str], bool],
                 enabled: frozenset[str], only: Optional[frozenset[Finding]] = None) -> NotebookFix:
    """Fix *notebook* (read from *path*, shown as *display*), whose module has *findings* (at module lines).

    *check*: how a module text is checked; *move_definitions*: whether WSP206's definitions may move into a new
    module (not for stdin); *exists*: whether a path is taken (the new module is never written over a file);
    *enabled*: the codes reported for this file; *only*: fix these of *findings* and leave the others (None:
    every allowed one).
    """
    sibling = os.path.join(os.path.dirname(path), f"{sibling_module_name(path)}.py")
    can_move = move_definitions and rules.WSP206.fix_safety.applies(unsafe)
    if can_move and exists(sibling):
        can_move, taken = False, f"definitions not moved: {sibling} exists"
    else:
        taken = None
    fixed = _fixed(notebook.module, findings, check, display, unsafe, line_length, path, can_move, only)
    notes = [note for note in (fixed.outcome.note, taken, fixed.why) if note]
    result = NotebookFix(note="; ".join(notes) or None)
    if fixed.text == notebook.module:
        return result
    try:
        changed = split_fixed(notebook, fixed.text)
        new_raw = rewrite(notebook, changed) if changed else notebook.raw
    except NotebookFixError as error:
        result.note = f"{result.note}; {error}" if result.note else f"not fixed: {error}"
        return result
    if new_raw == notebook.raw:
        return result
    move = fixed.move
    result.raw = new_raw
    result.diff_lines = cell_diff(notebook, changed, display)
    if move is not None:
        result.new_module = (sibling, move.module_text)
        shown = os.path.join(os.path.dirname(display), f"{move.module_name}.py")
        moved_note = f"moved {', '.join(f'`{name}`' for name in move.names)} into {shown}"
        result.note = f"{result.note}; {moved_note}" if result.note else moved_note
        new_file = difflib.unified_diff([], split_rows(move.module_text), fromfile="/dev/null", tofile=shown)
        result.diff_lines = [*new_file, *result.diff_lines]
    # What remains is placed in the fixed notebook: its module is the fixer's output with the cells re-masked.
    fixed_notebook = loads(new_raw)
    left = check(fixed_notebook.module, None)
    still = {f.args.get("what") for f in left if f.rule is rules.WSP206}
    moved = [f for f in findings if f.rule is rules.WSP206 and f.args.get("what") not in still]
    result.fixed = sorted([*fixed.outcome.fixed, *moved], key=Finding.sort_key)
    result.fixed_count = len(result.fixed)
    result.remaining = to_cells(fixed_notebook, [f for f in left if f.code in enabled])
    return result


class _Fixed(Record):
    """The notebook's module as the fixes leave it."""

    __slots__ = ("text", "outcome", "move", "why")

    def __init__(self, text: str, outcome: FixOutcome, move: Optional["Move"] = None,
                 why: Optional[str] = None) -> None:
        self.text = text
        self.outcome = outcome
        self.move = move
        self.why = why  # why definitions were not moved


#: why, in a notebook, a hoist is half a fix
_NOT_PICKLABLE_THERE = {rules.WSP206.code: (
    "in a notebook its new top-level function would be pickled by reference to the kernel's `__main__`, which "
    "workers cannot import, and it cannot move to a module next to the notebook")}


def _fixed(module: str, findings: list[Finding], check: Check, display: str, unsafe: bool, line_length: int,
           path: str, can_move: bool, only: Optional[frozenset[Finding]]) -> _Fixed:
    """The module fixed: the hoists and the other fixes, then (``can_move``) the definitions workers need moved out,
    those the hoists made among them; a hoist whose definition cannot move is not made.

    ``only``: fix these of ``findings`` and leave the others (an editor's quick fix).  Asked for a WSP206, the move
    alone is made, of every definition (a second move could not create the module again); asked for a hoist, the
    definitions that hoist makes move, and those the notebook had stay."""
    fixes = functools.partial(fix_text, module, findings, check, filename=display, unsafe=unsafe,
                              line_length=line_length)
    if only is not None and any(f in only and f.rule is rules.WSP206 for f in findings):
        outcome = fixes(only=frozenset())
        move, why = plan_move(module, findings, path) if can_move else (None, None)
        return _Fixed(move.notebook_module if move is not None else module, outcome, move, why)
    if not can_move:
        outcome = fixes(added_note=_NOT_PICKLABLE_THERE, only=only)
        return _Fixed(outcome.text, outcome)
    had = {f.args.get("what") for f in findings if f.rule is rules.WSP206}
    outcome = fixes(may_add=frozenset({rules.WSP206.code}), only=only)
    move, why = plan_move(outcome.text, _to_move(outcome, module, findings, had, only), path)
    text = move.notebook_module if move is not None else outcome.text
    if text == module or {f.args.get("what") for f in check(text, None) if f.rule is rules.WSP206} <= had:
        return _Fixed(text, outcome, move, why)
    # A definition a hoist made stays in the notebook (it reads a notebook variable): without those hoists.
    outcome = fixes(added_note=_NOT_PICKLABLE_THERE, only=only)
    move, why = plan_move(outcome.text, _to_move(outcome, module, findings, had, only), path)
    return _Fixed(move.notebook_module if move is not None else outcome.text, outcome, move, why)


def _to_move(outcome: FixOutcome, module: str, findings: list[Finding], had: set,
             only: Optional[frozenset[Finding]]) -> list[Finding]:
    """The findings whose definitions move after ``outcome``: every WSP206 left, or (a quick fix) those of
    definitions a hoist made."""
    left = outcome.remaining if outcome.text != module else findings
    if only is None:
        return left
    return [f for f in left if f.rule is not rules.WSP206 or f.args.get("what") not in had]


# -- the unsafe fix of WSP206: move definitions into a module next to the notebook ---------------------

#: The rules this notebook-level fix repairs (the libcst codemods declare theirs the same way; the catalogue
#: test reads both).
FIXES = (rules.WSP206,)
#: what it does, as an editor's quick fix names it (the codemods' TITLE)
TITLE = "Move the definitions workers need into a module next to the notebook"


class Move(Record):
    """Definitions moved out of a notebook: the new module text, and the notebook's module without them."""

    __slots__ = ("module_name", "module_text", "notebook_module", "names")

    def __init__(self, module_name: str, module_text: str, notebook_module: str, names: list[str]) -> None:
        self.module_name = module_name
        self.module_text = module_text
        self.notebook_module = notebook_module
        self.names = names


def sibling_module_name(path: str) -> str:
    """``train-v2.ipynb`` -> ``train_v2_defs``: an importable name derived from the notebook's."""
    import keyword

    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0]) or "notebook"
    if stem[0].isdigit() or keyword.iskeyword(stem):
        stem = "nb_" + stem
    return f"{stem}_defs"


def plan_move(module: str, findings: list[Finding], path: str) -> tuple[Optional[Move], Optional[str]]:
    """(the move, None) or (None, why not) for the notebook-level definitions WSP206 reports in the notebook's
    ``module``.

    A definition moves only when it is self-contained: every name it reads from the notebook is an import
    (the names it uses copied into the new module) or another definition that moves with it; it declares no
    ``global``; the notebook binds its name once; no IPython line is inside it.  Anything else stays, and is still
    reported.
    """
    import builtins

    tree = ast.parse(module)
    lines = split_lines(module)
    top_defs = {node.lineno: node for node in tree.body if isinstance(node, DEFINITIONS)}
    wanted = {top_defs[f.line] for f in findings if f.rule is rules.WSP206 and f.line in top_defs}
    if not wanted:
        return None, None
    scopes = ScopeTree(tree)
    bindings: dict[str, list[ast.stmt]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and any(alias.name == "*" for alias in stmt.names):
            return None, "definitions not moved: the notebook has a star import"
        for name in scopes.module_binds(stmt):
            bindings.setdefault(name, []).append(stmt)
    masked_lines = masked_rows(lines)
    needs: dict[ast.stmt, tuple[dict[str, ast.stmt], set[ast.stmt]]] = {}  # def -> (imported name: import, defs)
    movable: set[ast.stmt] = set()
    todo = list(wanted)
    while todo:  # bounded: each definition of the module is looked at once
        node = todo.pop()
        if node in needs:
            continue
        imports, defs, ok = {}, set(), True
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        if masked_lines & set(range(start, node.end_lineno + 1)) or len(bindings.get(node.name, ())) != 1 \
                or any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(node)):
            ok = False
        for name in scopes.module_reads([node]) - {node.name}:
            found = bindings.get(name)
            if not found:
                ok = ok and hasattr(builtins, name)
            elif all(isinstance(s, (ast.Import, ast.ImportFrom)) and not getattr(s, "level", 0) for s in found):
                imports[name] = found[0]
            elif len(found) == 1 and found[0] in top_defs.values():
                defs.add(found[0])
                todo.append(found[0])
            else:
                ok = False
        needs[node] = (imports, defs)
        if ok:
            movable.add(node)
    scopes.unlink()
    changed = True
    while changed:  # a definition that needs one that cannot move cannot move either
        changed = False
        for node in list(movable):
            if not needs[node][1] <= movable:
                movable.discard(node)
                changed = True
    moving = sorted((n for n in movable if n in wanted or _needed_by(n, wanted & movable, needs)),
                    key=lambda n: n.lineno)
    if not moving:
        return None, "definitions not moved: they read notebook variables, or contain IPython syntax"
    module_name = sibling_module_name(path)
    used: dict[ast.stmt, set[str]] = {}  # import statement -> the names the moved definitions use of it
    for node in moving:
        for name, statement in needs[node][0].items():
            used.setdefault(statement, set()).add(name)
    spans = [(min([n.lineno, *(d.lineno for d in n.decorator_list)]), n.end_lineno) for n in moving]
    parts = ['"""Definitions moved out of the notebook by `winspawn-lint --fix --unsafe-fixes` (WSP206): worker\n'
             'processes cannot import a notebook, but they can import this module."""\n']
    if used:
        parts.append("\n" + "".join(_import_of(statement, names, module) + "\n"
                                    for statement, names in sorted(used.items(), key=lambda item: item[0].lineno)))
    for start, end in spans:
        parts.append("\n\n" + "\n".join(lines[start - 1: end]) + "\n")
    names = [n.name for n in moving]
    new_lines: list[Optional[str]] = list(lines)
    for index, (start, end) in enumerate(spans):
        if index:  # the blank lines that separated a removed definition from the code above go with it
            while start > 1 and lines[start - 2].strip() == "" and new_lines[start - 2] is not None:
                start -= 1
            if start == 1 or is_cell_marker(lines[start - 2]):  # at the top of its cell: those after it too
                while end < len(lines) and not lines[end].strip():
                    end += 1
        new_lines[start - 1: end] = [None] * (end - start + 1)
        if index == 0:
            new_lines[start - 1] = f"from {module_name} import {', '.join(names)}"
    kept = [line for line in new_lines if line is not None]
    notebook_module = "".join(f"{line}\n" for line in _tidied(kept, f"from {module_name} import "))
    module_text = "".join(parts)
    try:
        compile(module_text, module_name + ".py", "exec", dont_inherit=True)
        # a notebook may `await` at the top level (IPython runs such cells as coroutines)
        compile(notebook_module, path, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except SyntaxError as error:
        return None, f"definitions not moved: the result would not compile ({error.msg})"
    return Move(module_name, module_text, notebook_module, names), None


def _tidied(lines: list[str], imported: str) -> list[str]:
    """``lines`` with the blank rows around the new import row as a maintainer leaves them: none between it and the
    start of its cell, one after it (two before a definition)."""
    at = next(index for index, line in enumerate(lines) if line.startswith(imported))
    above = at
    while above > 0 and not lines[above - 1].strip():
        above -= 1
    if above == 0 or is_cell_marker(lines[above - 1]):
        lines, at = lines[:above] + lines[at:], above
    below = at + 1
    while below < len(lines) and not lines[below].strip():
        below += 1
    if below < len(lines) and not is_cell_marker(lines[below]):
        wanted = 2 if lines[below].startswith(("def ", "class ", "async def ", "@")) else 1
        lines = lines[:at + 1] + [""] * wanted + lines[below:]
    else:
        lines = lines[:at + 1] + lines[below:]
    return lines


def _import_of(statement: ast.stmt, names: set[str], module: str) -> str:
    """``statement`` (an import) as the new module needs it: as written when every name it binds is used, else
    only the names used (``from torch.utils.data import DataLoader, Dataset`` of which only ``Dataset`` is: ``from
    torch.utils.data import Dataset``)."""
    aliases = [alias for alias in statement.names if (alias.asname or alias.name.split(".")[0]) in names]
    if len(aliases) == len(statement.names):
        return ast.get_source_segment(module, statement)
    spelled = ", ".join(f"{alias.name} as {alias.asname}" if alias.asname else alias.name for alias in aliases)
    if isinstance(statement, ast.Import):
        return f"import {spelled}"
    return f"from {statement.module} import {spelled}"


def _needed_by(node, roots: set, needs: dict) -> bool:
    seen, todo = set(), list(roots)
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        if node in needs.get(current, ((), ()))[1]:
            return True
        todo.extend(needs.get(current, ((), ()))[1])
    return False
