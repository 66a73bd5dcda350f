"""A module's text as rows, edited at ``ast`` positions: for the codemods that rewrite a few statements of a
module without libcst.  Parsing a module with libcst costs more than checking it (over
diffusers' 74 fixable files: 6.5 s of parsing against a 3.3 s check of the whole repository), while a hoist
or a guard wrap touches a handful of rows.

Which blank and comment rows go with a statement follows libcst, so that an edit of rows gives the text the
same edit of a libcst tree gives:

* a statement's *leading rows* are the blank and comment rows between it and the statement before it (after
  that one's footer), or its block's header; at the top of a module they are the module's header instead;
* a block's *footer* runs from its last statement to the last comment row after it that is indented at least
  as far as the block (blank rows and shallower comments in between included); a match statement's block is
  its cases;
* one block deeper, every row that is not blank and does not begin inside a string is indented.  (libcst
  leaves a comment or continuation row that is less indented than its own block where it is; here such a
  row keeps its place relative to the others.)
"""

from __future__ import annotations

import ast
import functools
import io
import tokenize
from collections import Counter
from typing import Optional

from ..analysis.positions import char_column
from ..io.source import split_rows
from ._base import CannotEdit, Edit, apply_edits
from .tokens import rows_inside


class Lines:
    """Rows of one text (1-based, line endings kept) and the edits planned on them (:class:`._base.Edit`)."""

    def __init__(self, text: str) -> None:
        self.text = text
        # row n starts at self._starts[n - 1]; the last entry is the text's end
        self.rows, self._starts, self.newline = _split(text)
        self._edits: list[Edit] = []

    # -- reading ----------------------------------------------------------------------------------------
    def row(self, number: int) -> str:
        return self.rows[number - 1] if 1 <= number <= len(self.rows) else ""

    def indent(self, number: int) -> str:
        row = self.row(number)
        return row[:len(row) - len(row.lstrip(" \t"))]

    def segment(self, node: ast.AST) -> str:
        """``ast.get_source_segment(text, node, padded=True)`` without splitting the whole text each time."""
        first, last = node.lineno, node.end_lineno
        rows = [row.rstrip("\r\n") for row in self.rows[first - 1:last]]
        if not rows:
            return ""
        start, end = char_column(rows[0], node.col_offset), char_column(rows[-1], node.end_col_offset)
        if len(rows) == 1:
            return " " * start + rows[0][start:end]
        return "\n".join([" " * start + rows[0][start:], *rows[1:-1], rows[-1][:end]])

    def first(self, statement: ast.stmt) -> int:
        """The statement's first row (its first decorator's, for a decorated one)."""
        return min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", ()))])

    def last(self, statement: ast.stmt) -> int:
        """The statement's last row, its blocks' footer included."""
        end = statement.end_lineno
        # A match statement's block holds its cases (the footer is at their indentation, libcst's Match.footer).
        body = [case.pattern for case in statement.cases] if isinstance(statement, ast.Match) else \
            getattr(statement, "body", None)
        if not isinstance(body, list) or not body or body[0].lineno == statement.lineno:
            return end  # a simple statement, or a block on the header's line: no footer
        depth = len(self.indent(body[0].lineno).expandtabs())
        row = last = end
        while row < len(self.rows) and _blank_or_comment(self.row(row + 1)):
            row += 1
            if _is_comment(self.row(row)) and len(self.indent(row).expandtabs()) >= depth:
                last = row
        return last

    def leading(self, statement: ast.stmt, previous: Optional[ast.stmt]) -> int:
        """The first of the statement's leading rows; ``previous``: the statement before it in its block."""
        row = self.first(statement)
        bound = self.last(previous) if previous is not None else 0
        while row - 1 > bound and _blank_or_comment(self.row(row - 1)):
            row -= 1
        return row

    def top_leading(self, module: ast.Module, index: int) -> int:
        """The first leading row of top-level statement ``index``; the first statement has none (the rows
        above it are the module's header)."""
        statement = module.body[index]
        return self.first(statement) if index == 0 else self.leading(statement, module.body[index - 1])

    def blank_run(self, row: int) -> int:
        """How many blank rows start at ``row``."""
        count = 0
        while row + count <= len(self.rows) and not self.row(row + count).strip():
            count += 1
        return count

    def string_rows(self, first: int, last: int) -> set[int]:
        """The rows of ``first..last`` (a run of whole statements) that begin inside a string."""
        return {first - 1 + row for row in _rows_in_strings("".join(self.rows[first - 1:last]))}

    def dedented(self, first: int, last: int, indent: str) -> str:
        """Rows ``first..last`` with ``indent`` taken off each (``\\n`` line ends): a block moved to column 0.
        Rows inside strings keep their text; a comment or blank row indented less loses what it has."""
        inside = self.string_rows(first, last)
        out = []
        for number in range(first, last + 1):
            row = self.row(number).rstrip("\r\n")
            if number in inside:
                out.append(row)
            elif row.startswith(indent):
                out.append(row[len(indent):])
            elif _blank_or_comment(row):
                out.append(row.lstrip(" \t"))
            else:
                raise CannotEdit("a line of it is indented less than its first line")
        return "\n".join(out) + "\n"

    # -- editing ----------------------------------------------------------------------------------------
    def offset(self, row: int, column: int = 0) -> int:
        """Where (``row``, character ``column``) is in the text."""
        return self._starts[min(max(row, 1), len(self._starts)) - 1] + column

    def at(self, row: int, byte_col: int) -> int:
        """Where ``ast``'s (``row``, byte column ``byte_col``) is in the text."""
        return self.offset(row, char_column(self.row(row), byte_col))

    def replace(self, first: int, last: int, text: str, native: bool = False) -> None:
        """Rows ``first..last`` become ``text`` (``\\n`` line ends, or the text's own with ``native``; rows as they
        should stand, line ends included)."""
        self.replace_span(self.offset(first), self.offset(last + 1), text, native)

    def insert(self, before: int, text: str, native: bool = False) -> None:
        """``text`` (whole rows) before row ``before``; inserts at one row keep the order they were made in."""
        self.replace_span(self.offset(before), self.offset(before), text, native)

    def insert_at(self, offset: int, text: str) -> None:
        """``text`` (``\\n`` line ends) at ``offset`` in the text."""
        self.replace_span(offset, offset, text)

    def replace_node(self, node: ast.AST, text: str) -> None:
        """The code of ``node`` (an ``ast`` expression: its own parentheses stay) becomes ``text``."""
        self.replace_span(self.at(node.lineno, node.col_offset), self.at(node.end_lineno, node.end_col_offset), text)

    def replace_span(self, start: int, end: int, text: str, native: bool = False) -> None:
        """``self.text[start:end]`` becomes ``text`` (``\\n`` line ends, or the text's own with ``native``)."""
        if self.newline != "\n" and not native:
            text = text.replace("\n", self.newline)
        self._edits.append(Edit(start, end, text))

    def edits(self) -> list[Edit]:
        """The edits planned, in the order they were made."""
        return list(self._edits)

    def edited(self) -> str:
        """The text with every edit applied; :class:`CannotEdit` when two overlap."""
        return apply_edits(self.text, self._edits) if self._edits else self.text


def row_groups(body: list[ast.stmt]) -> list[list[ast.stmt]]:
    """``body``'s statements as libcst counts them: those that share a row (``a = 1; b = 2``) are one."""
    groups: list[list[ast.stmt]] = []
    for statement in body:
        if groups and statement.lineno == groups[-1][-1].end_lineno:
            groups[-1].append(statement)
        else:
            groups.append([statement])
    return groups


def indent_step(module: ast.Module, lines: Lines) -> str:
    """The module's indentation unit: the step most of its blocks are indented by (four spaces when it has none).
    A file indented by four spaces whose first block happens to be indented by two is a four-space file
    (pycodestyle's E111 and E114 count every row of the other unit)."""
    return _indent_unit(lines.text)


@functools.lru_cache(maxsize=4)
def _indent_unit(text: str) -> str:
    """The step most often between a row that opens a block (it ends with ``:``, a comment aside) and the next
    code row, when that one is indented deeper (by the other's indentation and more); rows are read as text, so a
    row inside a string may count too: the unit of the file is what most of its blocks say."""
    steps: Counter = Counter()
    first_seen: dict[str, int] = {}
    opener: Optional[str] = None  # the indentation of the row before, when it opens a block
    for row in _split(text)[0]:
        stripped = row.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = row[:len(row) - len(row.lstrip(" \t"))]
        if opener is not None and len(indent) > len(opener) and indent.startswith(opener):
            step = indent[len(opener):]
            steps[step] += 1
            first_seen.setdefault(step, len(first_seen))
        code = stripped.split("#", 1)[0].rstrip() if "#" in stripped else stripped
        opener = indent if code.endswith(":") else None
    if not steps:
        return "    "
    return max(steps, key=lambda step: (steps[step], -first_seen[step]))


@functools.lru_cache(maxsize=4)
def _split(text: str) -> tuple[list[str], list[int], str]:
    """The rows of ``text`` (line ends kept), where each starts (and where the text ends), and its line end (the
    first row's): made once per text for every codemod and pass that reads it."""
    rows = split_rows(text)
    starts = [0]
    for row in rows:
        starts.append(starts[-1] + len(row))
    first = rows[0] if rows else ""
    return rows, starts, first[len(first.rstrip("\r\n")):] or "\n"


def forget() -> None:
    """Drop the rows kept per text (the fixer is done with a file)."""
    _split.cache_clear()
    _indent_unit.cache_clear()


def indented(code: str, indent: str) -> str:
    """``code`` (whole statements at column 0, ``\\n`` line ends) with ``indent`` before each row that is not
    blank and does not begin inside a string."""
    inside = _rows_in_strings(code)
    return "".join(row if number in inside or not row.strip() else indent + row
                   for number, row in enumerate(split_rows(code), 1))


def _rows_in_strings(code: str) -> set[int]:
    """The rows (1-based) of ``code`` (whole statements) that begin inside a string."""
    try:
        return {row for token in tokenize.generate_tokens(io.StringIO(code).readline) for row in rows_inside(token)}
    except (tokenize.TokenError, SyntaxError) as error:  # (an IndentationError is a SyntaxError)
        raise CannotEdit("it could not be tokenized") from error


def _blank_or_comment(row: str) -> bool:
    stripped = row.strip()
    return not stripped or stripped.startswith("#")


def _is_comment(row: str) -> bool:
    return row.lstrip().startswith("#")
