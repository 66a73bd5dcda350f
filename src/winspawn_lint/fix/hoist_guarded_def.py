"""Move a function or class that workers need out of the main guard, to module level just before it (WSP106).

A spawned worker imports the script as ``__mp_main__``, where the guard's body
never runs: a definition made there does not exist in the worker.  Placed just
before the guard, it is defined by every import, the workers' included.

Only a definition directly in the guard's body moves, and only when nothing it
evaluates *when it is defined* (decorators, default values, annotations, base
classes, a class body) reads a name the guard binds: those names do not exist
before the guard runs, so the moved code would fail with ``NameError``.  What the
function reads when it is *called* is unaffected by the move.  UNSAFE: the
definition (and its decorators) now also runs when the module is imported, and
importers get a new name.

Run on its own::

    python -m libcst.tool codemod -x winspawn_lint.fix.commands.HoistGuardedDef train.py
"""

from __future__ import annotations

import ast
from typing import Optional

from .. import rules
from ..analysis.guards import is_main_guard
from ._base import DEFINITIONS, CannotEdit, Codemod, Edit, syntax_tree
from .lines import Lines


class HoistGuardedDef(Codemod):
    DESCRIPTION = "Move functions and classes that worker processes need out of the main guard."
    TITLE = "Move the definition out of the main guard"
    FIXES = (rules.WSP106,)

    def edit(self, text: str) -> list[Edit]:
        module = syntax_tree(text)
        # guard index in module.body -> {index in its body of a definition to move: its findings}
        plan: dict[int, dict[int, list]] = {}
        for finding in self.findings_for(text):
            line = (finding.fix_hint.get("guarded_def") or {}).get("line")
            found = _locate(module, line)
            if found is None:
                self.note(finding, "the definition is not directly in the body of a module-level main guard")
                continue
            guard_index, body_index = found
            guard = module.body[guard_index]
            why = _cannot_move(guard, guard.body[body_index])
            if why:
                self.note(finding, why)
                continue
            plan.setdefault(guard_index, {}).setdefault(body_index, []).append(finding)
        lines = Lines(text)
        for guard_index, moving in plan.items():
            try:
                self._move(lines, module, guard_index, sorted(moving))
            except CannotEdit as why:
                for findings in moving.values():
                    for finding in findings:
                        self.note(finding, str(why))
                continue
            for findings in moving.values():
                self.fixes(findings)
        return lines.edits()

    def _move(self, lines: Lines, module: ast.Module, guard_index: int, moving: list[int]) -> None:
        """The definitions ``moving`` (indexes in the guard's body) out of the guard, just before it, each after two
        blank rows and with its own comment rows; the guard keeps its comment rows, after two blank rows."""
        guard = module.body[guard_index]
        body = guard.body
        indent = lines.indent(lines.first(body[0]))
        hoisted = []
        for index in moving:
            node = body[index]
            first, last = lines.first(node), lines.last(node)
            lead = lines.leading(node, body[index - 1] if index else None)
            hoisted.append(_comments(lines, lead, first, indent) + lines.dedented(first, last, indent))
        # What the guard keeps: a definition's rows go with it (its comment rows, its blocks' footer); a guard
        # left with nothing gets `pass`, before the comment rows that close its body.
        for index in moving:
            node = body[index]
            lines.replace(lines.leading(node, body[index - 1] if index else None), lines.last(node), "")
        if len(moving) == len(body):
            lines.insert(lines.last(body[-1]) + 1, f"{indent}pass\n")
        first = lines.first(guard)
        if guard_index == 0:  # above it is the module's header, which stays on top
            lines.insert(first, "\n\n".join(hoisted) + "\n\n")
            return
        lead = lines.top_leading(module, guard_index)
        code = "".join(f"\n\n{definition}" for definition in hoisted)
        lines.replace(lead, first - 1, code + "\n\n" + _comments(lines, lead, first, lines.indent(first)))


def _comments(lines: Lines, lead: int, first: int, indent: str) -> str:
    """The comment rows among rows ``lead..first - 1`` (blank rows dropped), ``indent`` taken off each."""
    rows = (lines.row(number).rstrip("\r\n") for number in range(lead, first))
    return "".join((row[len(indent):] if row.startswith(indent) else row.lstrip(" \t")) + "\n"
                   for row in rows if row.strip())


def _locate(module: ast.Module, line: Optional[int]) -> Optional[tuple[int, int]]:
    if line is None:
        return None
    for guard_index, statement in enumerate(module.body):
        if isinstance(statement, ast.If) and is_main_guard(statement.test):
            for body_index, inner in enumerate(statement.body):
                if isinstance(inner, DEFINITIONS) and _first_line(inner) <= line <= (inner.end_lineno or line):
                    return guard_index, body_index
    return None


def _first_line(node: ast.AST) -> int:
    return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])


def _cannot_move(guard: ast.If, definition: ast.stmt) -> Optional[str]:
    bound = set()
    for statement in guard.body:
        if statement is not definition:
            bound |= _bound_names(statement)
    if definition.name in bound:
        return f"`{definition.name}` is bound more than once under the guard"
    needed = _definition_time_reads(definition) & bound
    if needed:
        return (f"its definition reads {', '.join(f'`{n}`' for n in sorted(needed))}, bound under the guard: "
                "module level runs before them")
    return None


def _bound_names(statement: ast.stmt) -> set[str]:
    """Every name a statement may bind, nested scopes included (more than needed is only more cautious)."""
    names = set()
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def _definition_time_reads(definition: ast.stmt) -> set[str]:
    """Names read when a def/class statement runs (not when the function is called)."""
    reads = set()
    stack: list[ast.AST] = [definition]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            stack.extend([*args.defaults, *(d for d in args.kw_defaults if d is not None)])
            if not isinstance(node, ast.Lambda):
                stack.extend(node.decorator_list)
                if node.returns is not None:
                    stack.append(node.returns)
                for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                    if arg is not None and arg.annotation is not None:
                        stack.append(arg.annotation)
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            reads.add(node.id)
        stack.extend(ast.iter_child_nodes(node))
    return reads
