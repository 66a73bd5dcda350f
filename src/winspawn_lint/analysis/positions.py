"""Column conversion: stdlib ``ast`` columns are UTF-8 byte offsets, findings use characters.

Done in this one place so every front end, and the fixer (libcst counts
characters too), agree on a line with non-ASCII text.
"""

from __future__ import annotations


class Positions:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines  # source lines without their line endings

    def char_col(self, line: int, byte_col: int) -> int:
        if not 1 <= line <= len(self.lines):
            return byte_col
        text = self.lines[line - 1]
        if text.isascii():
            return byte_col
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))

    def line_length(self, line: int) -> int:
        return len(self.lines[line - 1]) if 1 <= line <= len(self.lines) else 0
