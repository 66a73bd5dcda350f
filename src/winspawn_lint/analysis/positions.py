"""The one position model: lines as Python numbers them, columns as characters.

stdlib ``ast`` columns are UTF-8 *byte* offsets; :class:`~winspawn_lint.finding.Finding` columns (and
the fixer's edits) are *characters*.  Lines are 1-based in both.  Every conversion goes through here -- the
checks when they emit, the fixer when it turns a finding's ``fix_hint`` (ast bytes) into offsets of the text
it edits -- so every front end and the fixer agree on a line with non-ASCII text.
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
        return char_column(self.lines[line - 1], byte_col) if 1 <= line <= len(self.lines) else byte_col

    def byte_col(self, line: int, char_col: int) -> int:
        return byte_column(self.lines[line - 1], char_col) if 1 <= line <= len(self.lines) else char_col

    def line_length(self, line: int) -> int:
        return len(self.lines[line - 1]) if 1 <= line <= len(self.lines) else 0

    def node_start(self, node) -> tuple[int, int]:
        """An ast node's start as (line, character column)."""
        return node.lineno, self.char_col(node.lineno, node.col_offset)


def char_column(row: str, byte_col: int) -> int:
    """The character column of ``ast``'s UTF-8 byte column ``byte_col`` in ``row`` (a line, with or without its
    line end)."""
    return byte_col if row.isascii() else len(row.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))


def byte_column(row: str, char_col: int) -> int:
    """The UTF-8 byte column ``ast`` gives for character column ``char_col`` of ``row``."""
    return char_col if row.isascii() else len(row[:char_col].encode("utf-8"))


def span(node) -> dict:
    """An ``ast`` node's extent as a fix hint carries it (ast's own byte columns; the fixer converts them)."""
    return {"line": node.lineno, "col": node.col_offset, "end_line": node.end_lineno, "end_col": node.end_col_offset}
