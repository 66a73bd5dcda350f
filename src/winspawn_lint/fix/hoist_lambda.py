"""Hoist a lambda that reaches a worker to a module-level ``def`` (WSP201, WSP204, WSP901; WSP202's
``functools.partial(lambda ...)``).

``DataLoader(ds, collate_fn=lambda b: b)`` becomes ``def _collate_fn(b): return b`` before the
top-level statement that holds it, and the lambda becomes ``_collate_fn``.  The helper is named for what the
lambda is where it stands (the keyword it is passed as, the name it is assigned to), else for what it does
(``Lambda(lambda x: torch.flatten(x))``: ``_flatten``; ``ds.map(lambda x: {"label": ...})``: ``_label``), else for
the call it is given to (``_map_fn``).  The standard pickler
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
import keyword
import re
import tokenize
from typing import Optional

from .. import rules
from ..io.source import split_lines
from ..records import Record
from ..rules import FixSafety
from ._base import Codemod, Edit, positions_of
from ._tree import (CannotHoist, captured, enclosing_free_variables, is_plain_default, needs_partial,
                    top_level_statement, unique_name, used_names, whole_note)
from .lines import Lines, indent_step
from .style import line_limit
from .tokens import depth_change, rows_inside


class _Plan(Record):
    __slots__ = ("name", "free", "findings", "node", "replacement")

    def __init__(self, name: str, free: list[str], findings: list, node: ast.Lambda, replacement: str = "") -> None:
        self.name = name
        self.free = free
        self.findings = findings
        self.node = node
        self.replacement = replacement


class HoistLambda(Codemod):
    DESCRIPTION = "Hoist lambdas that reach pickle-based workers to module-level functions."
    TITLE = "Replace the lambda with a module-level function"
    FIXES = (rules.WSP201, rules.WSP202, rules.WSP204, rules.WSP901)

    @staticmethod
    def wants(finding) -> bool:
        return "lambda" in finding.fix_hint

    def edit(self, text: str) -> list[Edit]:
        located = self.locate(text, (ast.Lambda,), "lambda")
        module, parent, scopes, taken, positions = (located.module, located.parent, located.scopes, located.taken,
                                                    positions_of(text))
        plans: dict[tuple[int, int], _Plan] = {}  # lambda start (line, char col) -> plan
        for finding, node in located.found:
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
                self.note(finding, needs_partial(free))
                continue
            plans[key] = _Plan(unique_name("_" + _name(node, parent), taken), free, [finding], node)
        if not plans:
            return []
        if self.decide:  # what follows declines only a lambda whose tokens do not split into parameters and body
            for plan in plans.values():
                if plan.free:
                    self.fixes(plan.findings, FixSafety.UNSAFE, needs_partial(plan.free))
                else:
                    self.fixes(plan.findings)
            return []
        lines = Lines(text)

        partial = self.partial_ref(module) if any(p.free for p in plans.values()) else ""
        top_index = {id(stmt): index for index, stmt in enumerate(module.body)}
        indent = indent_step(module, lines)
        shapes: dict[tuple[str, str], str] = {}
        source: Optional[list[str]] = None  # the module's rows (no line ends), split for a multi-line body
        limit = line_limit(lines.rows, self.line_length)
        inserts: dict[int, list[str]] = {}  # index of a top-level statement -> definitions before it
        for key, plan in sorted(plans.items()):
            parts = _parts(lines, plan.node)
            if parts is None:
                for finding in plan.findings:
                    self.note(finding, "the lambda could not be split into its parameters and body")
                continue
            params, body, (row, column) = parts
            one_row = "\n" not in body and "\r" not in body
            # What it reads of the enclosing function: the attributes it reads of a name, where it reads no more
            # (only of a one-row body: the positions of a longer one move when it is re-indented).
            cap = captured(scopes, plan.node, plan.free, used_names(plan.node), attributes=one_row)
            if one_row:
                for chain, param in sorted(cap.replaced, key=lambda item: -item[0].col_offset):
                    start = positions.char_col(chain.lineno, chain.col_offset) - column
                    end = positions.char_col(chain.end_lineno, chain.end_col_offset) - column
                    body = body[:start] + param + body[end:]
            else:
                # `return (` puts the body's first line at a new column: its continuation lines follow it.
                source = source if source is not None else split_lines(text)
                indentation = len(lines.indent(row))
                moved = _reindented(body, source, row, column, indentation, len(indent) + len("return ("),
                                    len(indent))
                body = f"({body if moved is None else moved})"
            signature = ", ".join(part for part in (", ".join(cap.params), params) if part)
            # Identical lambdas (same parameters, body and captured names) share one helper.
            shape = (signature, body)
            if shape in shapes:
                plan.name = shapes[shape]
            else:
                shapes[shape] = plan.name
                header = f"def {plan.name}({signature}):"
                if len(header) > limit:  # the parameters on a continuation line, indented twice
                    header = f"def {plan.name}(\n{indent * 2}{signature}):"
                inserts.setdefault(top_index[id(top_level_statement(plan.node, parent))], []).append(
                    f"{header}\n{indent}return {body}\n")
            plan.replacement = f"{partial}({plan.name}, {', '.join(cap.values)})" if plan.free else plan.name
            lines.replace_node(plan.node, plan.replacement)
            if plan.free:
                self.fixes(plan.findings, FixSafety.UNSAFE, needs_partial(plan.free))
                if cap.whole:
                    self.remark(plan.findings[0], whole_note(cap.whole))
            else:
                self.fixes(plan.findings)
        if not any(plan.replacement for plan in plans.values()):
            return []
        for index, definitions in inserts.items():
            # Two blank lines around a top-level def (pycodestyle E302, E305), none at the top of the file; the
            # statement after them keeps its comment rows, after two blank rows.
            at = lines.top_leading(module, index)
            blanks = lines.blank_run(at) if index else 0
            lines.replace(at, at + blanks - 1, ("\n\n" if index else "") + "\n\n".join(definitions) + "\n\n")
        return lines.edits()


def _parts(lines: Lines, node: ast.Lambda) -> Optional[tuple[str, str, tuple[int, int]]]:
    """The lambda's parameters and body as they are written, and where the body starts (row, character
    column); None when its tokens do not split there."""
    segment = lines.segment(node)
    code = segment.lstrip(" ")
    first_column = len(segment) - len(code)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO("(" + code + ")").readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    depth = pending = 0
    colon = None
    for index, token in enumerate(tokens[1:], start=1):
        depth += depth_change(token)
        if depth == 0 and token.type == tokenize.NAME and token.string == "lambda":
            pending += 1  # a lambda in a default value has its own colon
        elif depth == 0 and token.type == tokenize.OP and token.string == ":":
            pending -= 1
            if pending == 0:
                colon = index
                break
    if colon is None:
        return None
    body_token = next((t for t in tokens[colon + 1:] if t.type not in (tokenize.NL, tokenize.COMMENT)), None)
    if body_token is None:
        return None
    rows = code.split("\n")

    def offset(row: int, column: int) -> int:  # in `code`, for a token position of "(" + code
        return sum(len(r) + 1 for r in rows[:row - 1]) + column - (1 if row == 1 else 0)

    params = code[len("lambda"):offset(*tokens[colon].start)].strip()
    body = code[offset(*body_token.start):]
    row = node.lineno + body_token.start[0] - 1
    column = body_token.start[1] - 1 + first_column if body_token.start[0] == 1 else body_token.start[1]
    return params, body, (row, column)


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")


def _reindented(body: str, source: list[str], first_line: int, old_col: int, old_indent: int, new_col: int,
                new_indent: int) -> Optional[str]:
    """*body*'s continuation lines for its first line moved from column *old_col* (on a line indented
    *old_indent*) to *new_col* (on a line indented *new_indent*), as pycodestyle wants them: a line inside a
    bracket the body opened moves with that bracket (a visual indent) or with the indentation of the bracket's
    line (a hanging indent: the bracket ends its line); a line at the body's own level is aligned with the
    body's first character (a visual indent after ``return (``); a line that starts inside a string is left as
    it is.  None when that cannot be done (tabs, a line that would have to start left of column 0).

    Where a line starts is read from the module's lines *source*, whose line *first_line* holds the body's
    first line (*body*'s own rows are compared without their indentation)."""
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


def _name(node: ast.Lambda, parent: dict) -> str:
    """A name for the helper: what the lambda is where it stands (the keyword it is passed as, the name it is
    assigned to), else what it does (:func:`_action`), else the call it is given to (``map_fn``)."""
    role, specific = _role(node, parent)
    return role if specific else _action(node) or role


def _role(node: ast.AST, parent: dict) -> tuple[str, bool]:
    """What the lambda is where it stands, and whether that says what it is for: the keyword it is passed as or the
    name or attribute it is assigned to (specific), else the method it is given to (``map_fn``, not: many
    functions are given to one)."""
    child, current = node, parent.get(node)
    fallback = "worker_fn"
    through_call = False
    while current is not None:
        if isinstance(current, ast.keyword) and current.arg:
            return current.arg, not through_call
        if isinstance(current, (ast.Assign, ast.AnnAssign)):
            targets = current.targets if isinstance(current, ast.Assign) else [current.target]
            target = targets[0]
            if isinstance(target, ast.Name):
                return target.id, not through_call
            if isinstance(target, ast.Attribute):
                return target.attr, not through_call
            break
        if isinstance(current, ast.Call) and child is not current.func:
            func = current.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name == "partial" or (name and name[:1].isupper()):
                # partial(...) and a class such as Compose([...]): what it is given to says more.
                if name != "partial":
                    through_call = True
                    if fallback == "worker_fn":
                        fallback = f"{_identifier(name) or 'worker'}_fn"
                child, current = current, parent.get(current)
                continue
            return (f"{name}_fn" if name else fallback), False
        if not isinstance(current, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Starred)):
            break
        child, current = current, parent.get(current)
    return fallback, False


#: calls that hold or convert what the lambda computes: the name comes from what they are given
_CONTAINERS = frozenset({"tuple", "list", "dict", "set", "frozenset", "sorted", "reversed", "iter", "next", "map",
                         "filter", "zip", "enumerate", "str", "int", "float", "bool", "len", "sum", "min", "max",
                         "any", "all", "abs", "round", "isinstance", "print", "repr", "type", "getattr", "hasattr"})


def _action(node: ast.Lambda) -> Optional[str]:
    """A name for what the lambda computes: the function its body calls (``torch.flatten(x)``: ``flatten``), the key
    or attribute it takes (``x["text"]``: ``text``), the first key of the dict it builds, ``identity``; None when
    the body says nothing a name can (arithmetic, a comparison)."""
    args = node.args
    params = {arg.arg for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if arg}
    body = node.body
    for _ in range(4):  # tuple(torch.stack(c) for c in ...): through the containers to what they hold
        if isinstance(body, ast.Name):
            return "identity" if body.id in params else None
        if isinstance(body, ast.Call):
            func = body.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name not in _CONTAINERS:
                return _identifier(name)
            inner = body.args[0] if body.args else None
            body = inner.elt if isinstance(inner, (ast.GeneratorExp, ast.ListComp, ast.SetComp)) else inner
            continue
        if isinstance(body, ast.Dict) and body.keys and isinstance(body.keys[0], ast.Constant):
            return _identifier(body.keys[0].value)
        if isinstance(body, ast.Subscript) and isinstance(body.slice, ast.Constant):
            return _identifier(body.slice.value)
        if isinstance(body, ast.Attribute):
            return _identifier(body.attr)
        return None
    return None


def _identifier(word) -> Optional[str]:
    """``word`` (a name, a string key) as a lower-case snake-case identifier (``ToTensor``: ``to_tensor``), or None
    (a word of fewer than three letters, ``x`` or ``y``, names nothing)."""
    if not isinstance(word, str):
        return None
    word = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", word)
    word = re.sub(r"\W+", "_", word).strip("_").lower()
    return word if len(word) >= 3 and word.isidentifier() and not keyword.iskeyword(word) else None
