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
* Definitions that would be the same module-level code (the same ``collate_fn`` in two functions: same
  body and parameters, the same names taken from their enclosing functions) are hoisted once and share
  that one; so does a definition identical to a module-level function already defined before it.  Every
  name a hoisted body reads that is not a parameter resolves at module level, so the same code means the
  same function.
* A class that reads local names (a factory's parameter in a method, say) cannot be bound that way:
  reported without a fix.  So are decorated functions, ``nonlocal``, names assigned only after the
  definition, and defaults or annotations that read local names.

Run on its own::

    python -m libcst.tool codemod -x winspawn_lint.fix.commands.HoistLocalDef train.py
"""

from __future__ import annotations

import ast
import copy
import io
import textwrap
import tokenize
from dataclasses import dataclass
from typing import Optional

import libcst as cst

from .. import rules
from ..analysis.scopes import ScopeTree
from ._base import StatementMap, WinspawnCodemod, statement_groups, wrap_params
from ._tree import CannotHoist, enclosing_free_variables, find_node, module_names, parents, top_level_statement, unique_name
from .style import max_line_length, wrap_call

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_MAX_HELPER_DEPTH = 50  # local functions calling local functions: deeper chains take more passes


@dataclass
class _Plan:
    node: ast.AST
    new_name: str
    free: list[str]
    findings: list
    top: ast.stmt
    keep_local: bool  # the local name must stay bound (rename or partial)
    shared: bool = False  # an identical definition is already at module level, or hoisted by another plan


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
        # (shape, the top-level statement index it is defined before) of each module-level function: an
        # identical local one is not hoisted again.
        shapes: dict[str, tuple[str, int]] = {}
        for index, stmt in enumerate(module.body):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and not stmt.decorator_list:
                shapes.setdefault(_shape(stmt, [], text), (stmt.name, index))
        located = [(finding, self._definition(finding, module)) for finding in self.findings_for(text)]
        # In source order, so that a definition shared by several is hoisted before the first that uses it.
        located.sort(key=lambda pair: (pair[1].lineno, pair[1].col_offset) if pair[1] is not None else (0, 0))

        def plan(node: ast.AST, findings: list, depth: int) -> _Plan:
            """The plan for ``node`` (made once); raises CannotHoist."""
            if id(node) in plans:
                plans[id(node)].findings.extend(findings)
                return plans[id(node)]
            free = self._check(node, scopes)
            if free and not self.unsafe:
                raise CannotHoist(f"it reads {', '.join(free)} from the enclosing function (binding them with "
                                  "functools.partial is an unsafe fix: use --unsafe-fixes)")
            # A local function it calls is hoisted with it, in the same pass (else a chain of them would take one
            # pass each): one that keeps its name at module level is no longer taken from the enclosing function.
            if depth < _MAX_HELPER_DEPTH:
                for name in list(free):
                    helper = _local_function(scopes, node, name)
                    if helper is None:
                        continue
                    try:
                        helper_plan = plan(helper, [], depth + 1)
                    except CannotHoist:
                        continue
                    if not helper_plan.keep_local and helper_plan.new_name == name:
                        free.remove(name)
            bound_once = len(scopes.scope_of[node].parent.bindings.get(node.name, ())) == 1
            top = top_level_statement(node, parent)
            top_index = next(i for i, stmt in enumerate(module.body) if stmt is top)
            shape = _shape(node, free, text) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
            if shape in shapes and shapes[shape][1] <= top_index:
                name = shapes[shape][0]
                removable = name == node.name and not free and bound_once
                # A removed definition's comment lines would go with it: such a one is hoisted on its own.
                if not (removable and _has_leading_comment(node, text)):
                    plans[id(node)] = _Plan(node, name, free, findings, top, shared=True, keep_local=not removable)
                    return plans[id(node)]
            same_name = not free and node.name not in module_binds and bound_once
            new_name = node.name if same_name else unique_name("_" + node.name.lstrip("_"), taken)
            if same_name:
                module_binds.add(node.name)
            plans[id(node)] = _Plan(node, new_name, free, findings, top, keep_local=not same_name)
            if shape is not None:
                shapes.setdefault(shape, (new_name, top_index))
            return plans[id(node)]

        for finding, node in located:
            if node is None:
                continue
            try:
                plan(node, [finding], 0)
            except CannotHoist as why:
                self.note(finding, str(why))
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
                if plan.shared:
                    return self._replace(original, plan)
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
                return self._replace(original, plan)

            def _replace(self, original, plan):
                """What stands where the local definition was: nothing, or the local name bound to the hoisted one."""
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
                # Comment lines above a hoisted definition went with it; a shared one leaves them here.
                kept = [line for line in original.leading_lines if plan.shared or line.comment is None]
                return statement.with_changes(leading_lines=kept)

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


def _shape(node: ast.AST, free: list[str], text: str) -> str:
    """The module-level function ``node`` becomes once hoisted with ``free`` as leading parameters, whatever its
    name, and its comments: equal shapes are the same code, and dropping one of them loses no comment."""
    clone = copy.copy(node)
    clone.name = "_"
    args = copy.copy(node.args)
    extra = [ast.arg(arg=name) for name in free]
    if args.posonlyargs:
        args.posonlyargs = [*extra, *args.posonlyargs]
    else:
        args.args = [*extra, *args.args]
    clone.args = args
    return f"{ast.dump(clone)}\n{_comments(ast.get_source_segment(text, node, padded=True) or '')}"


def _comments(segment: str) -> str:
    try:
        tokens = tokenize.generate_tokens(io.StringIO(textwrap.dedent(segment)).readline)
        return "\n".join(t.string for t in tokens if t.type == tokenize.COMMENT)
    except (tokenize.TokenError, SyntaxError):
        return repr(segment)  # cannot tell: shared only with the very same text


def _has_leading_comment(node: ast.AST, text: str) -> bool:
    """Whether a comment line sits right above the definition (or its decorators)."""
    lines = text.splitlines()
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
    for line in reversed(lines[:first - 1]):
        if line.strip():
            return line.strip().startswith("#")
    return False


def _local_function(scopes: ScopeTree, node: ast.AST, name: str) -> Optional[ast.AST]:
    """The local ``def name`` that ``node`` reads ``name`` from, when that def is the name's only binding in its
    function (so that the name means that function wherever it is read)."""
    found = scopes.enclosing_reads(node).get(name)
    if found is None:
        return None
    scope = found[0]
    if len(scope.bindings.get(name, ())) != 1 or not scope.binds(name):
        return None
    defs = [child.node for child in scope.children
            if isinstance(child.node, (ast.FunctionDef, ast.AsyncFunctionDef)) and child.node.name == name]
    return defs[0] if len(defs) == 1 and defs[0] is not node else None
