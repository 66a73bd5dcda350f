"""Hoist a function or class defined inside a function to module level (WSP202, WSP203, and the local
functions of WSP204 and WSP901).

The standard pickler stores functions and classes by reference (module + qualified name), so
``main.<locals>.double`` cannot reach a spawned worker while a module-level ``double`` can.

* A function or class that reads nothing from the enclosing function, whose name is free at module
  level, moves there unchanged (its local definition disappears; the function's uses now find the
  module-level one).
* A function that reads local names gets them as leading parameters, under a new unique name, and
  its local definition becomes ``name = functools.partial(_name, a, b)`` (values bound when the
  ``def`` statement ran, not when called: applied only with ``--unsafe-fixes``).
* A class that reads local names (a factory's parameter in a method, say) cannot be bound that way:
  reported without a fix.  So are decorated functions, ``nonlocal``, names assigned only after the
  definition, and defaults or annotations that read local names.

Run on its own::

    python -m libcst.tool codemod -x winspawn_lint.fix.commands.HoistLocalDef train.py
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

import libcst as cst

from .. import rules
from ..analysis.scopes import ScopeTree
from ._base import StatementMap, WinspawnCodemod, statement_groups, wrap_params
from ._tree import CannotHoist, enclosing_free_variables, find_node, module_names, parents, top_level_statement, unique_name
from .style import max_line_length, wrap_call

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass
class _Plan:
    node: ast.AST
    new_name: str
    free: list[str]
    findings: list
    top: ast.stmt
    keep_local: bool  # the local name must stay bound (rename or partial)


class HoistLocalDef(WinspawnCodemod):
    DESCRIPTION = "Hoist functions and classes defined inside functions to module level."
    FIXES = (rules.WSP202, rules.WSP203, rules.WSP204, rules.WSP901)

    @staticmethod
    def wants(finding) -> bool:
        return "def" in finding.fix_hint

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        text, module, _ = self.prepare(tree)
        parent = parents(module)
        scopes = self.scopes(module)
        taken = module_names(module)
        module_binds = set(scopes.module.bindings)
        plans: dict[int, _Plan] = {}
        for finding in self.findings_for(text):
            node = self._definition(finding, module)
            if node is None:
                continue
            if id(node) in plans:
                plans[id(node)].findings.append(finding)
                continue
            try:
                free = self._check(node, scopes)
            except CannotHoist as why:
                self.note(finding, str(why))
                continue
            if free and not self.unsafe:
                self.note(finding, f"it reads {', '.join(free)} from the enclosing function (binding them with "
                                   "functools.partial is an unsafe fix: use --unsafe-fixes)")
                continue
            bound_once = len(scopes.scope_of[node].parent.bindings.get(node.name, ())) == 1
            same_name = not free and node.name not in module_binds and bound_once
            new_name = node.name if same_name else unique_name("_" + node.name.lstrip("_"), taken)
            if same_name:
                module_binds.add(node.name)
            plans[id(node)] = _Plan(node, new_name, free, [finding], top_level_statement(node, parent),
                                    keep_local=not same_name)
        if not plans:
            return tree
        partial = self.partial_ref(module) if any(p.free for p in plans.values()) else ""
        limit = max_line_length(self.context.filename)
        # A definition is found again through the statement map, and only the paths to them are visited.
        statements = StatementMap(tree, module)
        by_node = {id(statements.node(p.node)): p for p in plans.values()}
        on_path = statements.paths(by_node)
        groups = statement_groups(tree, module)
        tops = {id(p.top) for p in plans.values()}
        codemod = self
        hoisted: dict[int, list[cst.BaseStatement]] = {}  # top-level statement index -> definitions before it
        removed: set[int] = set()

        class Hoist(cst.CSTTransformer):
            def on_visit(self, node: cst.CSTNode) -> bool:
                return id(node) in on_path

            def _leave(self, original, updated):
                plan = by_node.get(id(original))
                if plan is None or plan.node.name != original.name.value:
                    return updated
                definition = updated.with_changes(name=cst.Name(plan.new_name))
                if plan.free and isinstance(definition, cst.FunctionDef):
                    params = definition.params
                    extra = [cst.Param(cst.Name(name)) for name in plan.free]
                    if params.posonly_params:
                        params = params.with_changes(posonly_params=[*extra, *params.posonly_params])
                    else:
                        params = params.with_changes(params=[*extra, *params.params])
                    definition = wrap_params(definition.with_changes(params=params), limit, tree.default_indent)
                comments = [line for line in original.leading_lines if line.comment is not None]
                definition = definition.with_changes(
                    leading_lines=[cst.EmptyLine(indent=False), cst.EmptyLine(indent=False),
                                   *[c.with_changes(indent=False) for c in comments]])
                hoisted.setdefault(id(plan.top), []).append(definition)
                codemod.applied.extend(plan.findings)
                if not plan.keep_local:
                    removed.add(id(original))
                    return cst.RemoveFromParent()
                if plan.free:
                    code = wrap_call(f"{original.name.value} = ", partial, [plan.new_name, *plan.free],
                                     plan.node.col_offset, tree.default_indent, limit)
                else:
                    code = f"{original.name.value} = {plan.new_name}\n"
                statement = codemod.parse_statements(tree, code)[0]
                blanks = [line for line in original.leading_lines if line.comment is None]
                return statement.with_changes(leading_lines=blanks)

            def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock):
                if not original.body or id(original.body[0]) not in removed:
                    return updated
                if not updated.body:
                    return updated.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
                first = updated.body[0]
                lines = list(first.leading_lines)
                while lines and lines[0].comment is None:
                    lines.pop(0)
                return updated.with_changes(body=[first.with_changes(leading_lines=lines), *updated.body[1:]])

            def leave_FunctionDef(self, original, updated):
                return self._leave(original, updated)

            def leave_ClassDef(self, original, updated):
                return self._leave(original, updated)

        # Only visit inside top-level statements, so top-level definitions are never touched.
        body: list[cst.BaseStatement] = []
        for statement, group in zip(tree.body, groups):
            mine = [stmt for stmt in group if id(stmt) in tops]
            if not mine:
                body.append(statement)
                continue
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                new = statement.with_changes(body=statement.body.visit(Hoist()))
            else:
                new = statement.visit(Hoist())
            for stmt in mine:
                for index, definition in enumerate(hoisted.pop(id(stmt), [])):
                    if index == 0 and not body:
                        definition = definition.with_changes(leading_lines=[])
                    body.append(definition)
            blanks = [line for line in getattr(new, "leading_lines", ()) if line.comment is None]
            if len(blanks) < 2 and body and any(isinstance(b, (cst.FunctionDef, cst.ClassDef)) for b in body[-1:]):
                new = new.with_changes(leading_lines=[cst.EmptyLine(indent=False)] * (2 - len(blanks))
                                       + list(new.leading_lines))
            body.append(new)
        return tree.with_changes(body=body)

    # -- finding the definition ---------------------------------------------------------------------------
    def _definition(self, finding, module: ast.Module) -> Optional[ast.AST]:
        """The local function or class the check points at (its ``fix_hint``), or None."""
        hint = finding.fix_hint.get("def")
        return find_node(module, _DEFS, hint["line"], hint["col"]) if hint else None

    def _check(self, node: ast.AST, scopes: ScopeTree) -> list[str]:
        if isinstance(node, ast.ClassDef):
            used = sorted(set(scopes.enclosing_reads(node)) | scopes.outer_local_reads(node))
            if used:
                raise CannotHoist(f"the class reads {', '.join(used)} from the enclosing function")
            return []
        if node.decorator_list:
            raise CannotHoist("it is decorated")
        if scopes.outer_local_reads(node):
            raise CannotHoist("a default value or annotation reads a local name")
        return enclosing_free_variables(scopes, node)
