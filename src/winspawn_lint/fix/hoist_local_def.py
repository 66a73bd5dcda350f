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
from typing import Optional

from .. import rules
from ..analysis.positions import char_column
from ..analysis.scopes import ScopeTree
from ..io.compact_tree import plain
from ..io.source import split_lines, split_rows
from ..records import Record
from ..rules import FixSafety
from ._base import CannotEdit, Codemod, Edit
from ._tree import (CannotHoist, Captured, ancestors, captured, enclosing_free_variables, find_node, needs_partial,
                    top_level_statement, unique_name, used_names, whole_note)
from .lines import Lines, indent_step, indented
from .style import line_limit, wrap_call

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_MAX_HELPER_DEPTH = 50  # local functions calling local functions: deeper chains take more passes


class _Plan(Record):
    __slots__ = ("node", "new_name", "free", "findings", "top", "keep_local", "shared", "captured")

    def __init__(self, node: ast.AST, new_name: str, free: list[str], findings: list, top: ast.stmt, keep_local: bool,
                 shared: bool = False, captured: Optional[Captured] = None) -> None:
        self.node = node
        self.new_name = new_name
        self.free = free
        self.findings = findings
        self.top = top
        self.keep_local = keep_local  # the local name must stay bound (rename or partial)
        self.shared = shared  # an identical definition is already at module level, or hoisted by another plan
        #: what stands for ``free`` (the names, or the attribute chains read of them), when the plan writes edits
        self.captured = captured


class HoistLocalDef(Codemod):
    DESCRIPTION = "Hoist functions and classes defined inside functions to module level."
    TITLE = "Move the definition to module level"
    FIXES = (rules.WSP202, rules.WSP203, rules.WSP204, rules.WSP901)

    @staticmethod
    def wants(finding) -> bool:
        return "def" in finding.fix_hint

    def edit(self, text: str) -> list[Edit]:
        located = self.locate(text, _DEFS, "def")
        module, parent, scopes, taken = located.module, located.parent, located.scopes, located.taken
        lines = Lines(text) if not self.decide else None
        module_binds = set(scopes.module.bindings)
        plans: dict[int, _Plan] = {}
        # (shape, the top-level statement index it is defined before) of each module-level function: an
        # identical local one is not hoisted again.
        shapes: dict[str, tuple[str, int]] = {}
        # Only a function with as many statements can have the same shape: the others are never dumped.
        module_functions: dict[int, list[tuple[int, ast.AST]]] = {}
        for index, stmt in enumerate(module.body):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and not stmt.decorator_list:
                module_functions.setdefault(len(stmt.body), []).append((index, stmt))

        def shape_of(node: ast.AST, cap: Optional[Captured]) -> Optional[str]:
            if self.decide:  # sharing one module-level copy changes the edits, not what is fixed
                return None
            for index, stmt in module_functions.pop(len(node.body), ()):
                shapes.setdefault(_shape(stmt, None, lines), (stmt.name, index))
            return _shape(node, cap, lines)

        # In source order, so that a definition shared by several is hoisted before the first that uses it.
        found = sorted(located.found, key=lambda pair: (pair[1].lineno, pair[1].col_offset))

        def plan(node: ast.AST, findings: list, depth: int) -> _Plan:
            """The plan for ``node`` (made once); raises CannotHoist."""
            if id(node) in plans:
                plans[id(node)].findings.extend(findings)
                return plans[id(node)]
            find_node(module, _DEFS, node.lineno, node.col_offset)  # a helper's parents (the scopes found it)
            free = self._check(node, scopes)
            if free and not self.unsafe:
                raise CannotHoist(needs_partial(free))
            # A local function it calls is hoisted with it, in the same pass (else a chain of them would take one
            # pass each): one that keeps its name at module level is no longer taken from the enclosing function.
            if depth < _MAX_HELPER_DEPTH:
                for name in list(free):
                    helper = _local_function(scopes, node, name)
                    if helper is None:
                        continue
                    scopes.expand(helper)  # its body was not asked about until now
                    try:
                        helper_plan = plan(helper, [], depth + 1)
                    except CannotHoist:
                        continue
                    if not helper_plan.keep_local and helper_plan.new_name == name:
                        free.remove(name)
            bound_once = len(scopes.scope_of[node].parent.bindings.get(node.name, ())) == 1
            top = top_level_statement(node, parent)
            top_index = next(i for i, stmt in enumerate(module.body) if stmt is top)
            cap = captured(scopes, node, free, used_names(node)) if free and not self.decide else None
            shape = shape_of(node, cap) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
            if shape in shapes and shapes[shape][1] <= top_index:
                name = shapes[shape][0]
                removable = name == node.name and not free and bound_once
                # A removed definition's comment lines would go with it: such a one is hoisted on its own.
                if not (removable and _has_leading_comment(node, lines)):
                    plans[id(node)] = _Plan(node, name, free, findings, top, shared=True, keep_local=not removable,
                                            captured=cap)
                    return plans[id(node)]
            same_name = not free and node.name not in module_binds and bound_once
            new_name = node.name if same_name else unique_name("_" + node.name.lstrip("_"), taken)
            if same_name:
                module_binds.add(node.name)
            plans[id(node)] = _Plan(node, new_name, free, findings, top, keep_local=not same_name, captured=cap)
            if shape is not None:
                shapes.setdefault(shape, (new_name, top_index))
            return plans[id(node)]

        for finding, node in found:
            try:
                plan(node, [finding], 0)
            except CannotHoist as why:
                self.note(finding, str(why))
        plan = None  # the recursive closure held itself, and the module with it, in a cycle
        if not plans:
            return []
        if self.decide:  # what follows declines only rows that cannot be moved (a rare indentation)
            for hoist in plans.values():
                if hoist.free:
                    self.fixes(hoist.findings, FixSafety.UNSAFE, needs_partial(hoist.free))
                else:
                    self.fixes(hoist.findings)
            return []
        return self._edit(lines, module, parent, plans)

    def _edit(self, lines: Lines, module: ast.Module, parent: dict, plans: dict[int, _Plan]) -> list[Edit]:
        """The text with each planned definition hoisted, and what stands in its place."""
        partial = self.partial_ref(module) if any(p.free for p in plans.values()) else ""
        limit = line_limit(lines.rows, self.line_length)
        step = indent_step(module, lines)
        top_index = {id(stmt): index for index, stmt in enumerate(module.body)}
        hoisted: dict[int, list[str]] = {}  # top-level statement index -> definitions before it
        # Definitions inside another one move with it; the next pass hoists them from where they are then.
        active = sorted((p for p in plans.values()
                         if not any(id(above) in plans for above in ancestors(p.node, parent))),
                        key=lambda p: (p.node.lineno, p.node.col_offset))
        gone = {id(p.node) for p in active if not p.keep_local}
        blocks = {id(block): block for block in (_block_of(p.node, parent) for p in active)}
        # A block whose first statement goes: its new first statement loses the blank rows above its first
        # comment (as libcst leaves it), or the block gets a `pass` when nothing is left.
        new_first: set[int] = set()
        for block in blocks.values():
            left = [stmt for stmt in block if id(stmt) not in gone]
            if not left:
                lines.insert(lines.last(block[-1]) + 1, lines.indent(lines.first(block[-1])) + "pass\n")
            elif left[0] is not block[0]:
                new_first.add(id(left[0]))
                if not any(p.node is left[0] for p in active):
                    start = lines.last(block[block.index(left[0]) - 1]) + 1
                    if lines.blank_run(start):
                        lines.replace(start, start + lines.blank_run(start) - 1, "")
        for plan in active:
            node = plan.node
            block = _block_of(node, parent)
            position = next(i for i, stmt in enumerate(block) if stmt is node)
            first, last = lines.first(node), lines.last(node)
            lead = lines.leading(node, block[position - 1] if position else None)
            indent = lines.indent(first)
            comments = [row[len(indent):] if row.startswith(indent) else row.lstrip(" \t")
                        for row in (lines.row(number).rstrip("\r\n") + "\n" for number in range(lead, first))
                        if row.strip()]
            try:
                if not plan.shared:
                    definition = self._hoisted(lines.dedented(first, last, indent), node.lineno - first + 1, plan,
                                               limit, step, _replacements(lines, plan, first, indent))
                    hoisted.setdefault(top_index[id(plan.top)], []).append("".join(comments) + definition)
                if not plan.keep_local:
                    lines.replace(lead, last, "")
                else:
                    if plan.free:
                        code = wrap_call(f"{node.name} = ", partial, [plan.new_name, *plan.captured.values],
                                         len(indent.expandtabs()), step, limit)
                    else:
                        code = f"{node.name} = {plan.new_name}\n"
                    skip = lines.blank_run(lead) if id(node) in new_first else 0
                    # Comment rows above a hoisted definition went with it; a shared one leaves them here.
                    kept = "".join(lines.row(number) for number in range(lead + skip, first)
                                   if plan.shared or not lines.row(number).strip())
                    lines.replace(lead, last, kept.replace(lines.newline, "\n") + indented(code, indent))
            except CannotEdit as why:
                # The others may rely on this one (a shared definition, a helper hoisted with its caller): the
                # pass makes no change, and says why for each.
                return self._declined(plans, f"{why} (while hoisting `{node.name}`)")
        for index, definitions in hoisted.items():
            at = lines.top_leading(module, index)
            top = module.body[index]
            # Two blank rows around each new top-level definition (pycodestyle E302, E305), none at the top
            # of the file; the statement after them gets two blank rows when it had fewer.
            code = "".join(("\n\n" if index or number else "") + definition
                           for number, definition in enumerate(definitions))
            blanks = sum(1 for row in range(at, lines.first(top)) if not lines.row(row).strip())
            lines.insert(at, code + "\n" * max(0, 2 - blanks))
        try:
            lines.edited()
        except CannotEdit as why:
            return self._declined(plans, str(why))
        for plan in active:
            if plan.free:
                self.fixes(plan.findings, FixSafety.UNSAFE, needs_partial(plan.free))
                if plan.captured.whole and plan.findings:
                    self.remark(plan.findings[0], whole_note(plan.captured.whole))
            else:
                self.fixes(plan.findings)
        return lines.edits()

    def _declined(self, plans: dict[int, _Plan], why: str) -> list[Edit]:
        for plan in plans.values():
            for finding in plan.findings:
                self.note(finding, why)
        return []

    def _hoisted(self, fragment: str, row: int, plan: _Plan, limit: int, step: str, replaced: list) -> str:
        """The module-level definition made of ``fragment`` (the local one's rows at column 0; its header on
        ``row``): renamed, and taking what it read from the enclosing function as leading parameters (``replaced``:
        the attribute chains those stand for, at the fragment's positions, and the parameter of each).  A
        header longer than ``limit`` gets its parameters on a continuation row indented twice (as pycodestyle
        wants before a block), and one per row when that is still too long."""
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(fragment).readline))
        except (tokenize.TokenError, SyntaxError) as error:
            raise CannotEdit("it could not be tokenized") from error
        at = next(i for i, t in enumerate(tokens) if t.start[0] == row and t.string in ("def", "class"))
        rows = split_rows(fragment)
        edits = [(tokens[at + 1].start, tokens[at + 1].end, plan.new_name), *replaced]
        node = plan.node
        if not plan.free or not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return _spliced(rows, edits)
        params = plan.captured.params
        opening = at + 2  # `def name(`
        first = next(i for i in range(opening + 1, len(tokens)) if tokens[i].type not in _LAYOUT)
        has_params = tokens[first].string != ")"
        extra = ", ".join(params) + (", " if has_params else "")
        text = _spliced(rows, [*edits, (tokens[first].start, tokens[first].start, extra)])
        header = split_lines(text)[row - 1]
        # What stood between `(` and the first parameter makes way for the new row, unless it holds a comment.
        if len(header) <= limit or any(t.type == tokenize.COMMENT for t in tokens[opening + 1:first]):
            return text
        hang = "\n" + step * 2
        args = node.args
        simple = not (args.posonlyargs or args.kwonlyargs or args.vararg or args.kwarg)
        one_row = len(step * 2) + len(header) - header.index("(") <= limit
        if one_row or not simple or len(params) + len(args.args) < 2:
            return _spliced(rows, [*edits, (tokens[opening].end, tokens[first].start, hang + extra)])
        # One parameter per row: a new row after the comma that ends each (not after a trailing one).
        moved = ast.parse(fragment).body[0].args  # the same parameters, at the fragment's positions
        defaults = [None] * (len(moved.args) - len(moved.defaults)) + list(moved.defaults)
        separators = []
        for arg, default in list(zip(moved.args, defaults))[:-1]:
            end = default or arg
            after = (end.end_lineno, char_column(rows[end.end_lineno - 1], end.end_col_offset))
            separators.append(next(i for i in range(first, len(tokens))
                                   if tokens[i].start >= after and tokens[i].string == ","))
        if any(tokens[index + 1].type == tokenize.COMMENT for index in separators):
            return text
        extra = ("," + hang).join(params) + ("," + hang if has_params else "")
        return _spliced(rows, [*edits, (tokens[opening].end, tokens[first].start, hang + extra),
                               *((tokens[index].end, tokens[index + 1].start, hang) for index in separators)])

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


def _replacements(lines: Lines, plan: _Plan, first: int, indent: str) -> list:
    """The attribute chains the hoisted definition reads of captured names, as edits of its fragment (its rows from
    ``first``, ``indent`` taken off): each becomes the parameter that stands for it."""
    if plan.captured is None:
        return []
    out = []
    for chain, param in plan.captured.replaced:
        start = (chain.lineno - first + 1, char_column(lines.row(chain.lineno), chain.col_offset) - len(indent))
        end = (chain.end_lineno - first + 1, char_column(lines.row(chain.end_lineno), chain.end_col_offset)
               - len(indent))
        out.append((start, end, param))
    return out


def _shape(node: ast.AST, cap: Optional[Captured], lines: Lines) -> str:
    """The module-level function ``node`` becomes once hoisted with ``cap``'s parameters in front, whatever its
    name, and its comments: equal shapes are the same code, and dropping one of them loses no comment."""
    clone = copy.copy(node)
    clone.name = "_"
    args = copy.copy(node.args)
    extra = [ast.arg(arg=name) for name in (cap.params if cap else [])]
    if args.posonlyargs:
        args.posonlyargs = [*extra, *args.posonlyargs]
    else:
        args.args = [*extra, *args.args]
    clone.args = args
    stands_for = [(ast.dump(plain(chain)), param) for chain, param in cap.replaced] if cap else []
    return f"{ast.dump(plain(clone))}\n{stands_for}\n{_comments(lines.segment(node))}"


def _comments(segment: str) -> str:
    try:
        tokens = tokenize.generate_tokens(io.StringIO(textwrap.dedent(segment)).readline)
        return "\n".join(t.string for t in tokens if t.type == tokenize.COMMENT)
    except (tokenize.TokenError, SyntaxError):
        return repr(segment)  # cannot tell: shared only with the very same text


_LAYOUT = (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)


def _spliced(rows: list[str], edits: list[tuple[tuple[int, int], tuple[int, int], str]]) -> str:
    """``rows`` joined, each ``(start, end, text)`` (token positions: row, character column) replaced."""
    starts = [0]
    for row in rows:
        starts.append(starts[-1] + len(row))
    text = "".join(rows)
    out, at = [], 0
    for (start_row, start_col), (end_row, end_col), new in sorted(edits, key=lambda edit: (edit[0], edit[1])):
        start, end = starts[start_row - 1] + start_col, starts[end_row - 1] + end_col
        out.append(text[at:start])
        out.append(new)
        at = end
    out.append(text[at:])
    return "".join(out)


def _has_leading_comment(node: ast.AST, lines: Lines) -> bool:
    """Whether a comment row sits right above the definition (or its decorators)."""
    row = lines.first(node) - 1
    while row > 0 and not lines.row(row).strip():
        row -= 1
    return row > 0 and lines.row(row).lstrip().startswith("#")


def _block_of(node: ast.stmt, parent: dict) -> list:
    """The statement list that holds ``node``."""
    holder = parent[node]
    for name in ("body", "orelse", "finalbody"):
        block = getattr(holder, name, None)
        if isinstance(block, list) and any(stmt is node for stmt in block):
            return block
    raise CannotHoist("its block could not be found")


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
