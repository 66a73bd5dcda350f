"""Hoist a lambda that reaches a worker to a module-level ``def`` (WSP201, WSP204, WSP901; WSP202's
``functools.partial(lambda ...)``).

``DataLoader(ds, collate_fn=lambda b: b)`` becomes ``def _collate_fn(b): return b`` before the
top-level statement that holds it, and the lambda becomes ``_collate_fn``.  The standard pickler
stores a module-level function by reference, so it reaches spawned workers.  Names the lambda reads
from enclosing functions become leading parameters bound with ``functools.partial(_collate_fn, a)``:
the values are bound when the lambda expression ran instead of when it is called, which differs
only if the enclosing function rebinds them in between, so that form is applied only with
``--unsafe-fixes``.  A lambda whose default values are not plain constants (they would be evaluated
once at import instead of each time), that reads a name assigned only later, or that uses
``super()`` is left alone.

Run on its own::

    python -m libcst.tool codemod -x winspawn_lint.fix.commands.HoistLambda train.py
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
from typing import Optional

import libcst as cst

from .. import rules
from ..io.source import split_lines
from ._base import StatementMap, WinspawnCodemod, blank_lines, leading_blank_count, statement_groups
from ._tree import (CannotHoist, enclosing_free_variables, find_node, is_plain_default, module_names, parents,
                    top_level_statement, unique_name)
from .style import max_line_length, rows_inside


@dataclass
class _Plan:
    name: str
    free: list[str]
    findings: list
    node: ast.Lambda
    definition: str = ""
    replacement: str = ""


class HoistLambda(WinspawnCodemod):
    DESCRIPTION = "Hoist lambdas that reach pickle-based workers to module-level functions."
    FIXES = (rules.WSP201, rules.WSP202, rules.WSP204, rules.WSP901)

    @staticmethod
    def wants(finding) -> bool:
        return "lambda" in finding.fix_hint

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        text, module, positions = self.prepare(tree)
        parent = parents(module)
        scopes = self.scopes(module)
        taken = module_names(module)
        plans: dict[tuple[int, int], _Plan] = {}  # lambda start (line, char col) -> plan
        for finding in self.findings_for(text):
            hint = finding.fix_hint.get("lambda")
            if not hint:
                continue
            node = find_node(module, (ast.Lambda,), hint["line"], hint["col"])
            if node is None:
                continue
            key = positions.node_start(node)
            if key in plans:
                plans[key].findings.append(finding)
                continue
            try:
                free = enclosing_free_variables(scopes, node)
                defaults = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
                if not all(is_plain_default(d) for d in defaults) or scopes.outer_local_reads(node):
                    raise CannotHoist("a default value is not a plain constant")
                if any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr)) for n in ast.walk(node)):
                    raise CannotHoist("it contains yield, await or `:=`")
            except CannotHoist as why:
                self.note(finding, str(why))
                continue
            if free and not self.unsafe:
                self.note(finding, f"it reads {', '.join(free)} from the enclosing function "
                                   "(binding them with functools.partial is an unsafe fix: use --unsafe-fixes)")
                continue
            plans[key] = _Plan(unique_name("_" + _role(node, parent), taken), free, [finding], node)
        if not plans:
            return tree

        partial = self.partial_ref(module) if any(p.free for p in plans.values()) else ""
        # Each lambda is found again as the n-th lambda, in source order, of the innermost statement that holds
        # it (outside that statement's nested blocks); the parameters are compared to be sure.
        statements = StatementMap(tree, module)
        top_index = {id(stmt): index for index, group in enumerate(statement_groups(tree, module)) for stmt in group}
        lambdas: dict[tuple[int, int], cst.Lambda] = {}
        owners: dict[tuple[int, int], int] = {}  # lambda -> index of its top-level statement
        for key, plan in plans.items():
            statement = _statement_of(plan.node, parent)
            siblings = sorted((n for n in ast.walk(statement) if isinstance(n, ast.Lambda)
                               and _statement_of(n, parent) is statement), key=lambda n: (n.lineno, n.col_offset))
            found = statements.find(statement, cst.Lambda, siblings.index(plan.node))
            if found is None or _param_names(found) != _ast_param_names(plan.node):
                for finding in plan.findings:
                    self.note(finding, "the lambda could not be located in the concrete syntax tree")
                continue
            lambdas[key] = found
            owners[key] = top_index[id(top_level_statement(statement, parent))]
        indent = tree.default_indent
        shapes: dict[tuple[str, str], str] = {}
        source: Optional[list[str]] = None  # the module's lines, split for the first multi-line body
        limit = max_line_length(self.context.filename)
        for key, plan in sorted(plans.items()):
            node = lambdas.get(key)
            if node is None or key not in owners:
                continue
            params = tree.code_for_node(node.params).strip()
            body = tree.code_for_node(node.body)
            if "\n" in body or "\r" in body:
                # `return (` puts the body's first line at a new column: its continuation lines follow it.
                source = source if source is not None else split_lines(text)
                start = _body_start(tree, node, body, key, source)
                moved = None if start is None else _reindented(body, source, *start, len(indent) + len("return ("),
                                                               len(indent))
                body = f"({body if moved is None else moved})"
            signature = ", ".join(part for part in (", ".join(plan.free), params) if part)
            # Identical lambdas (same parameters, body and captured names) share one helper.
            shape = (signature, body)
            if shape in shapes:
                plan.name = shapes[shape]
            else:
                shapes[shape] = plan.name
                header = f"def {plan.name}({signature}):"
                if len(header) > limit:  # the parameters on a continuation line, indented twice
                    header = f"def {plan.name}(\n{indent * 2}{signature}):"
                plan.definition = f"{header}\n{indent}return {body}\n"
            plan.replacement = f"{partial}({plan.name}, {', '.join(plan.free)})" if plan.free else plan.name
            self.applied.extend(plan.findings)

        ready = {key: plan for key, plan in plans.items() if plan.replacement}
        if not ready:
            return tree

        new_tree = statements.replace({
            id(lambdas[key]): cst.parse_expression(plan.replacement, config=tree.config_for_parsing).with_changes(
                lpar=lambdas[key].lpar, rpar=lambdas[key].rpar)
            for key, plan in ready.items()})
        inserts: dict[int, list[cst.BaseStatement]] = {}
        for key, plan in sorted(ready.items()):
            if plan.definition:
                inserts.setdefault(owners[key], []).extend(self.parse_statements(tree, plan.definition))
        body: list[cst.BaseStatement] = []
        for index, statement in enumerate(new_tree.body):
            definitions = inserts.get(index, ())
            for definition in definitions:
                # Two blank lines around a top-level def (pycodestyle E302, E305), none at the top of the file.
                body.append(definition.with_changes(leading_lines=blank_lines(2) if body else []))
            if definitions:
                lines = list(getattr(statement, "leading_lines", ()))
                statement = statement.with_changes(leading_lines=[*blank_lines(2),
                                                                  *lines[leading_blank_count(statement):]])
            body.append(statement)
        return new_tree.with_changes(body=body)


def _body_start(tree: cst.Module, node: cst.Lambda, body: str, key: tuple[int, int],
                lines: list[str]) -> Optional[tuple[int, int, int]]:
    """Where the lambda's *body* (its code) starts in the module's *lines*: line, column, and the indentation of
    that line; *key*: where the ``lambda`` keyword is (line, column; its own parentheses excluded, as in
    ``ast``)."""
    code = tree.code_for_node(node)
    rpar = "".join(tree.code_for_node(p) for p in node.rpar)
    lpar = "".join(tree.code_for_node(p) for p in node.lpar)
    end = len(code) - len(rpar)
    if code[end - len(body):end] != body:
        return None
    before = code[len(lpar):end - len(body)]
    number = key[0] + before.count("\n")
    if not 0 < number <= len(lines):
        return None
    line = lines[number - 1]
    indentation = len(line) - len(line.lstrip(" "))
    if "\n" in before:  # libcst leaves the block's indentation out of continuation lines: the text has it
        column = indentation + len(before.rsplit("\n", 1)[1].lstrip(" "))
    else:
        column = key[1] + len(before)
    return number, column, indentation


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")


def _reindented(body: str, source: list[str], first_line: int, old_col: int, old_indent: int, new_col: int,
                new_indent: int) -> Optional[str]:
    """*body*'s continuation lines for its first line moved from column *old_col* (on a line indented
    *old_indent*) to *new_col* (on a line indented *new_indent*), as pycodestyle wants them: a line inside a
    bracket the body opened moves with that bracket (a visual indent) or with the indentation of the bracket's
    line (a hanging indent: the bracket ends its line); a line at the body's own level is aligned with the
    body's first character (a visual indent after ``return (``); a line that starts inside a string is left as
    it is.  None when that cannot be done (tabs, a line that would have to start left of column 0).

    libcst renders a node's continuation lines without the indentation of the block around it: where a line
    starts is read from the module's lines *source*, whose line *first_line* holds the body's first line."""
    lines = [line for line in _LINE.findall(body) if line]
    try:  # in parentheses, as in the new `return (...)`: a line at the body's own level is a continuation
        tokens = list(tokenize.generate_tokens(io.StringIO("(" + body.replace("\r\n", "\n") + ")").readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    # The brackets the body opened and has not closed yet: (line, hanging), lines 0-based.
    opened: list[tuple[int, bool]] = []
    open_at_start: dict[int, Optional[tuple[int, bool]]] = {}  # line -> its innermost open bracket (None: none)
    in_string: set[int] = set()
    for index, token in enumerate(tokens):
        (start_line, _), (end_line, _) = token.start, token.end
        for line in range(start_line - 1, end_line):
            open_at_start.setdefault(line, opened[-1] if opened else None)
        in_string.update(row - 1 for row in rows_inside(token))
        if token.type == tokenize.OP and token.string in "([{" and index:  # (not the wrapping parenthesis)
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            hanging = following is not None and following.type in (tokenize.NL, tokenize.COMMENT)
            opened.append((start_line - 1, hanging))
        elif token.type == tokenize.OP and token.string in ")]}" and opened:
            opened.pop()
    shifts = {0: new_col - old_col}  # line -> how far it moves
    indent_shifts = {0: new_indent - old_indent}  # line -> how far its indentation moves
    out = [lines[0]]
    for number, line in enumerate(lines[1:], start=1):
        content = line.lstrip(" ")
        if number in in_string or not content.strip():
            shifts[number] = indent_shifts[number] = 0
            out.append(line)
            continue
        original = source[first_line - 1 + number] if first_line - 1 + number < len(source) else ""
        lead = len(original) - len(original.lstrip(" "))
        if content.startswith("\t") or not original[lead:].startswith(content.rstrip("\r\n")[:20]):
            return None
        bracket = open_at_start.get(number)
        if bracket is None:
            shifts[number] = new_col - lead
        else:
            line, hanging = bracket
            shifts[number] = indent_shifts[line] if hanging else shifts[line]
        indent_shifts[number] = shifts[number]
        if lead + shifts[number] < 0:
            return None
        out.append(" " * (lead + shifts[number]) + content)
    return "".join(out)


def _statement_of(node: ast.AST, parent: dict) -> ast.stmt:
    while not isinstance(node, ast.stmt):  # ends: every expression is inside a statement
        node = parent[node]
    return node


def _param_names(node: cst.Lambda) -> list[str]:
    params = node.params
    star = [params.star_arg] if isinstance(params.star_arg, cst.Param) else []
    return [p.name.value for p in [*params.posonly_params, *params.params, *star, *params.kwonly_params,
                                   *([params.star_kwarg] if params.star_kwarg else [])]]


def _ast_param_names(node: ast.Lambda) -> list[str]:
    args = node.args
    return [a.arg for a in [*args.posonlyargs, *args.args, *([args.vararg] if args.vararg else []), *args.kwonlyargs,
                            *([args.kwarg] if args.kwarg else [])]]


def _role(node: ast.AST, parent: dict) -> str:
    """A name for what the lambda is: the keyword, the assigned name or attribute, or the method it is given to."""
    child, current = node, parent.get(node)
    fallback = "worker_fn"
    while current is not None:
        if isinstance(current, ast.keyword) and current.arg:
            return current.arg
        if isinstance(current, (ast.Assign, ast.AnnAssign)):
            targets = current.targets if isinstance(current, ast.Assign) else [current.target]
            target = targets[0]
            if isinstance(target, ast.Name):
                return target.id
            if isinstance(target, ast.Attribute):
                return target.attr
            break
        if isinstance(current, ast.Call) and child is not current.func:
            func = current.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name == "partial" or (name and name[:1].isupper()):
                # partial(...) and a class such as Compose([...]): what it is given to says more.
                if name != "partial" and fallback == "worker_fn":
                    fallback = f"{name.lower()}_fn"
                child, current = current, parent.get(current)
                continue
            return f"{name}_fn" if name else fallback
        if not isinstance(current, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Starred)):
            break
        child, current = current, parent.get(current)
    return fallback
