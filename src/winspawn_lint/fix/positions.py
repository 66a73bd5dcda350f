"""The one place where the fixer converts between ``ast`` and libcst positions.

stdlib ``ast`` columns are UTF-8 *byte* offsets; libcst's ``PositionProvider``
columns (and :class:`~winspawn_lint.finding.Finding` columns) are *characters*.
Lines are 1-based in all three.  A fix hint (``Finding.fix_hint``) carries ast
byte columns; everything the codemods compare with libcst goes through here.
"""

from __future__ import annotations

from ..analysis.positions import Positions
from ..source import split_lines


class SourcePositions(Positions):
    """Byte <-> character columns for one source text."""

    @classmethod
    def of(cls, text: str) -> "SourcePositions":
        return cls(split_lines(text))

    def byte_col(self, line: int, char_col: int) -> int:
        if not 1 <= line <= len(self.lines):
            return char_col
        text = self.lines[line - 1]
        if text.isascii():
            return char_col
        return len(text[:char_col].encode("utf-8"))

    def node_start(self, node) -> tuple[int, int]:
        """An ast node's start as (line, character column)."""
        return node.lineno, self.char_col(node.lineno, node.col_offset)


def cst_start(code_range) -> tuple[int, int]:
    """A libcst ``CodeRange``'s start as (line, character column)."""
    return code_range.start.line, code_range.start.column
