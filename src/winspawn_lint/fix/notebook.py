"""``--fix`` for notebooks: the fixer on a notebook's module, its output put back into the cells, and (an unsafe
fix of WSP206) the definitions a worker needs moved into a module next to the notebook.

The fixer sees a notebook as :mod:`winspawn_lint.io.notebook` presents it, one module of its code cells; this
module plans the move of definitions out of the notebook (:func:`plan_move`) and turns the fixer's output into
the notebook's new text (:func:`fix_notebook`).  Nothing is written here: the driver writes the notebook and
the new module.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from typing import Callable, Optional

from .. import rules
from ..finding import Finding
from ..io.notebook import (Notebook, NotebookFixError, cell_diff, loads, masked_rows, rewrite, split_fixed,
                           to_cells)
from ..io.source import split_rows
from . import Check, FixOutcome, fix_text


@dataclass
class NotebookFix:
    """What ``--fix`` made of a notebook."""

    #: the notebook's new text; ``None`` when nothing changed
    raw: Optional[str] = None
    #: ``--diff`` output: the new module (if definitions moved) and the changed cells, one hunk group per cell
    diff_lines: list[str] = field(default_factory=list)
    #: (path, text) of the module the definitions moved to, to be created with the notebook's rewrite
    new_module: Optional[tuple[str, str]] = None
    fixed: list[Finding] = field(default_factory=list)
    fixed_count: int = 0
    #: the findings of the new notebook, in its cells
    remaining: list[Finding] = field(default_factory=list)
    note: Optional[str] = None


def fix_notebook(notebook: Notebook, findings: list[Finding], path: str, display: str, check: Check, *,
                 unsafe: bool, line_length: int, move_definitions: bool, exists: Callable[[str], bool],
                 enabled: frozenset[str], only: Optional[frozenset[Finding]] = None) -> NotebookFix:
    """Fix *notebook* (read from *path*, shown as *display*), whose module has *findings* (at module lines).

    *check*: how a module text is checked; *move_definitions*: whether WSP206's definitions may move into a new
    module (not for stdin); *exists*: whether a path is taken (the new module is never written over a file);
    *enabled*: the codes reported for this file; *only*: fix these of *findings* and leave the others (None:
    every allowed one).
    """
    module_text, move, notes = notebook.module, None, []
    # The move is one new module: asked for one of its definitions, it takes them all (a second move could
    # not create the module again).
    if move_definitions and rules.WSP206.fix_safety.applies(unsafe) and \
            (only is None or any(f in only and f.rule is rules.WSP206 for f in findings)):
        move, why = plan_move(notebook, findings, path)
        sibling = os.path.join(os.path.dirname(path), f"{move.module_name}.py") if move else ""
        if move is not None and exists(sibling):
            move, why = None, f"definitions not moved: {sibling} exists"
        if move is not None:
            module_text = move.notebook_module
            notes.append(f"moved {', '.join(f'`{n}`' for n in move.names)} into {sibling}")
        elif why:
            notes.append(why)
    module_findings = findings if module_text == notebook.module else check(module_text, None)
    # After a move, what *only* asked for was the move (no codemod fixes WSP206): nothing more is fixed.
    outcome: FixOutcome = fix_text(module_text, module_findings, check, filename=display, unsafe=unsafe,
                                   line_length=line_length, only=only if move is None else frozenset())
    notes += [outcome.note] if outcome.note else []
    result = NotebookFix(note="; ".join(notes) or None)
    if outcome.text == notebook.module:
        return result
    try:
        changed = split_fixed(notebook, outcome.text)
        new_raw = rewrite(notebook, changed) if changed else notebook.raw
    except NotebookFixError as error:
        result.note = f"{result.note}; {error}" if result.note else f"not fixed: {error}"
        return result
    if new_raw == notebook.raw:
        return result
    result.raw = new_raw
    result.diff_lines = cell_diff(notebook, changed, display)
    result.fixed = outcome.fixed
    result.fixed_count = len(outcome.fixed) + (len(move.names) if move else 0)
    if move is not None:
        result.new_module = (sibling, move.module_text)
        shown = os.path.join(os.path.dirname(display), f"{move.module_name}.py")
        new_file = difflib.unified_diff([], split_rows(move.module_text), fromfile="/dev/null",
                                        tofile=shown)
        result.diff_lines = [*new_file, *result.diff_lines]
    # What remains is placed in the fixed notebook: its module is the fixer's output with the cells re-masked.
    fixed_notebook = loads(new_raw)
    left = outcome.remaining if fixed_notebook.module == outcome.text else check(fixed_notebook.module, None)
    result.remaining = to_cells(fixed_notebook, [f for f in left if f.code in enabled])
    return result


# -- the unsafe fix of WSP206: move definitions into a module next to the notebook ---------------------

#: The rules this notebook-level fix repairs (the libcst codemods declare theirs the same way; the catalogue
#: test reads both).
FIXES = (rules.WSP206,)
#: what it does, as an editor's quick fix names it (the codemods' TITLE)
TITLE = "Move the definitions workers need into a module next to the notebook"


@dataclass
class Move:
    """Definitions moved out of a notebook: the new module text, and the notebook's module without them."""

    module_name: str
    module_text: str
    notebook_module: str
    names: list[str]


def sibling_module_name(path: str) -> str:
    """``train-v2.ipynb`` -> ``train_v2_defs``: an importable name derived from the notebook's."""
    import keyword

    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0]) or "notebook"
    if stem[0].isdigit() or keyword.iskeyword(stem):
        stem = "nb_" + stem
    return f"{stem}_defs"


def plan_move(notebook: Notebook, findings: list[Finding], path: str) -> tuple[Optional[Move], Optional[str]]:
    """(the move, None) or (None, why not) for the notebook-level definitions WSP206 reports.

    A definition moves only when it is self-contained: every name it reads from the notebook is an import
    (copied into the new module) or another definition that moves with it; it declares no ``global``; the
    notebook binds its name once; no IPython line is inside it.  Anything else stays, and is still reported.
    """
    import ast
    import builtins

    tree = ast.parse(notebook.module)
    lines = notebook.module.split("\n")
    top_defs = {node.lineno: node for node in tree.body
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    wanted = {top_defs[f.line] for f in findings if f.code == rules.WSP206.code and f.line in top_defs}
    if not wanted:
        return None, None
    bindings: dict[str, list[ast.stmt]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and any(alias.name == "*" for alias in stmt.names):
            return None, "definitions not moved: the notebook has a star import"
        for name in _bound_names(stmt):
            bindings.setdefault(name, []).append(stmt)
    masked_lines = masked_rows(lines)
    needs: dict[ast.stmt, tuple[set[ast.stmt], set[ast.stmt]]] = {}  # def -> (imports, other defs)
    movable: set[ast.stmt] = set()
    todo = list(wanted)
    while todo:  # bounded: each definition of the module is looked at once
        node = todo.pop()
        if node in needs:
            continue
        imports, defs, ok = set(), set(), True
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        if masked_lines & set(range(start, node.end_lineno + 1)) or len(bindings.get(node.name, ())) != 1 \
                or any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(node)):
            ok = False
        for name in _free_names(node) - {node.name}:
            found = bindings.get(name)
            if not found:
                ok = ok and hasattr(builtins, name)
            elif all(isinstance(s, (ast.Import, ast.ImportFrom)) and not getattr(s, "level", 0) for s in found):
                imports.add(found[0])
            elif len(found) == 1 and found[0] in top_defs.values():
                defs.add(found[0])
                todo.append(found[0])
            else:
                ok = False
        needs[node] = (imports, defs)
        if ok:
            movable.add(node)
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
    imports = sorted({i for n in moving for i in needs[n][0]}, key=lambda s: s.lineno)
    spans = [(min([n.lineno, *(d.lineno for d in n.decorator_list)]), n.end_lineno) for n in moving]
    parts = ['"""Definitions moved out of the notebook by `winspawn-lint --fix --unsafe-fixes` (WSP206): worker\n'
             'processes cannot import a notebook, but they can import this module."""\n']
    if imports:
        parts.append("\n" + "".join(ast.get_source_segment(notebook.module, s) + "\n" for s in imports))
    for start, end in spans:
        parts.append("\n\n" + "\n".join(lines[start - 1: end]) + "\n")
    names = [n.name for n in moving]
    new_lines = list(lines)
    for index, (start, end) in enumerate(spans):
        if index:  # the blank lines that separated a removed definition from the code above go with it
            while start > 1 and lines[start - 2].strip() == "" and new_lines[start - 2] is not None:
                start -= 1
        new_lines[start - 1: end] = [None] * (end - start + 1)  # type: ignore[list-item]
        if index == 0:
            new_lines[start - 1] = f"from {module_name} import {', '.join(names)}"
    notebook_module = "\n".join(line for line in new_lines if line is not None)
    module_text = "".join(parts)
    try:
        compile(module_text, module_name + ".py", "exec", dont_inherit=True)
        # a notebook may `await` at the top level (IPython runs such cells as coroutines)
        compile(notebook_module, path, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except SyntaxError as error:
        return None, f"definitions not moved: the result would not compile ({error.msg})"
    return Move(module_name, module_text, notebook_module, names), None


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


def _bound_names(stmt) -> set[str]:
    """Names a top-level statement binds (over-approximated for compound statements)."""
    import ast

    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in stmt.names}
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    names = set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def _free_names(node) -> set[str]:
    """Module-level names a definition reads: everything in its decorators, defaults, annotations and bases,
    and what its body reads but does not bind itself."""
    import ast

    outer: list = [*node.decorator_list]
    if isinstance(node, ast.ClassDef):
        outer += [*node.bases, *(k.value for k in node.keywords)]
    else:
        args = node.args
        outer += [*args.defaults, *(d for d in args.kw_defaults if d is not None), node.returns]
        outer += [a.annotation for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
                  if a is not None]
    free = {n.id for expr in outer if expr is not None for n in ast.walk(expr)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    body_loads, body_bound = set(), set()
    for stmt in node.body:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name):
                (body_loads if isinstance(n.ctx, ast.Load) else body_bound).add(n.id)
            elif isinstance(n, ast.arg):
                body_bound.add(n.arg)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                body_bound.add(n.name)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                body_bound.update((alias.asname or alias.name).split(".")[0] for alias in n.names)
    if not isinstance(node, ast.ClassDef):
        args = node.args
        body_bound.update(a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
                          if a is not None)
    return free | (body_loads - body_bound)
