"""The one position model: lines as Python numbers them, columns as characters.

stdlib ``ast`` columns are UTF-8 *byte* offsets; :class:`~winspawn_lint.finding.Finding` columns and
libcst's ``PositionProvider`` columns are *characters*.  Lines are 1-based in all three.  Every
conversion goes through here -- the checks when they emit, the fixer when it matches a finding's
``fix_hint`` (ast bytes) with libcst nodes -- so every front end and the fixer agree on a line with
non-ASCII text.
"""

from __future__ import annotations

from ..io.source import split_lines


class Positions:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines  # source lines without their line endings (see source.split_lines)

    @classmethod
    def of(cls, text: str) -> "Positions":
        return cls(split_lines(text))

    def char_col(self, line: int, byte_col: int) -> int:
        if not 1 <= line <= len(self.lines):
            return byte_col
        text = self.lines[line - 1]
        if text.isascii():
            return byte_col
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))

    def byte_col(self, line: int, char_col: int) -> int:
        if not 1 <= line <= len(self.lines):
            return char_col
        text = self.lines[line - 1]
        if text.isascii():
            return char_col
        return len(text[:char_col].encode("utf-8"))

    def line_length(self, line: int) -> int:
        return len(self.lines[line - 1]) if 1 <= line <= len(self.lines) else 0

    def node_start(self, node) -> tuple[int, int]:
        """An ast node's start as (line, character column)."""
        return node.lineno, self.char_col(node.lineno, node.col_offset)


def cst_start(code_range) -> tuple[int, int]:
    """A libcst ``CodeRange``'s start as (line, character column): libcst counts characters already."""
    return code_range.start.line, code_range.start.column


def span(node) -> dict:
    """An ``ast`` node's extent as a fix hint carries it (ast's own byte columns; the fixer converts them)."""
    return {"line": node.lineno, "col": node.col_offset, "end_line": node.end_lineno, "end_col": node.end_col_offset}
