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
from . import _cst as cst
from ._base import WinspawnCodemod, blank_lines

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class HoistGuardedDef(WinspawnCodemod):
    DESCRIPTION = "Move functions and classes that worker processes need out of the main guard."
    TITLE = "Move the definition out of the main guard"
    FIXES = (rules.WSP106,)

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        text, module, _ = self.prepare(tree)
        # guard index in module.body -> indexes in its body of the definitions to move
        plan: dict[int, set[int]] = {}
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
            plan.setdefault(guard_index, set()).add(body_index)
            self.applied.append(finding)
        if not plan:
            return tree
        new_body: list[cst.BaseStatement] = []
        for index, statement in enumerate(tree.body):
            moving = plan.get(index)
            if not moving or not isinstance(statement, cst.If):
                new_body.append(statement)
                continue
            inner = list(statement.body.body)
            hoisted = [inner[i] for i in sorted(moving)]
            kept = [node for i, node in enumerate(inner) if i not in moving]
            if not kept:
                kept = self.parse_statements(tree, "pass\n")
            for node in hoisted:
                new_body.append(node.with_changes(leading_lines=[*blank_lines(2), *_comments(node)]))
            guard = statement.with_changes(body=statement.body.with_changes(body=kept))
            new_body.append(guard.with_changes(leading_lines=[*blank_lines(2), *_comments(statement)]))
        if new_body and new_body[0] is not tree.body[0]:
            new_body[0] = new_body[0].with_changes(leading_lines=_comments(new_body[0]))
        return tree.with_changes(body=new_body)


def _comments(node: cst.CSTNode) -> list[cst.EmptyLine]:
    """The node's own leading comment lines (blank lines before them are replaced)."""
    lines = list(getattr(node, "leading_lines", ()))
    while lines and lines[0].comment is None:
        lines.pop(0)
    return lines


def _locate(module: ast.Module, line: Optional[int]) -> Optional[tuple[int, int]]:
    if line is None:
        return None
    for guard_index, statement in enumerate(module.body):
        if isinstance(statement, ast.If) and is_main_guard(statement.test):
            for body_index, inner in enumerate(statement.body):
                if isinstance(inner, _DEFINITIONS) and _first_line(inner) <= line <= (inner.end_lineno or line):
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
