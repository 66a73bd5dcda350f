"""Text as the Language Server Protocol addresses it: rows, positions in the client's code units, and the
smallest edits that turn one text into another.

LSP lines end at ``\\n``, ``\\r\\n`` or ``\\r`` only, as Python's tokenizer's do (:func:`..io.source.split_rows`;
``str.splitlines`` also breaks at form feeds and other characters, which would shift every line after one).  A
position's character counts code units of the encoding the client and server agreed on: UTF-16 (the default),
UTF-8 or UTF-32 (code points, which is what a finding's columns count).

Nothing here knows about pygls: positions are ``(line, character)`` pairs, edits ``((start, end), new_text)``.
"""

from __future__ import annotations

import bisect
import difflib
from itertools import accumulate
from typing import Optional

from ..io.source import split_rows

Position = tuple[int, int]  # 0-based line, character in the client's code units
Edit = tuple[tuple[Position, Position], str]  # (range in the old text, new text)

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


def units(text: str, encoding: str) -> int:
    """The length of *text* in the encoding's code units."""
    if encoding == UTF32 or text.isascii():
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


class Rows:
    """A text's rows and where each starts, for turning positions into offsets and back."""

    def __init__(self, text: str, encoding: str = UTF16) -> None:
        self.text = text
        self.encoding = encoding
        self.rows = split_rows(text)
        self.starts = [0]
        for row in self.rows:
            self.starts.append(self.starts[-1] + len(row))
        if self.rows and not self.rows[-1].endswith(("\n", "\r")):
            self.starts.pop()  # the last row has no line end: no row begins after it

    def content(self, line: int) -> str:
        """Row *line* (0-based) without its line end ('' past the end)."""
        if line >= len(self.rows):
            return ""
        return self.rows[line].rstrip("\r\n")

    def offset(self, position: Position) -> int:
        """The character offset in the text of a client position (clamped to the row and the text)."""
        line, character = position
        if line >= len(self.starts):
            return len(self.text)
        content = self.content(line)
        column = 0
        counted = 0
        while column < len(content) and counted < character:  # bounded by the row's length
            counted += units(content[column], self.encoding)
            column += 1
        return self.starts[line] + column

    def column(self, line: int, character: int) -> int:
        """The code point column of a client position on row *line*."""
        return self.offset((line, character)) - self.starts[min(line, len(self.starts) - 1)]

    def position(self, offset: int) -> Position:
        """The client position of a character offset."""
        line = max(0, bisect.bisect_right(self.starts, offset) - 1)
        content = self.content(line)
        column = min(offset - self.starts[line], len(content))
        return line, units(content[:column], self.encoding)

    def at(self, line: int, column: int) -> Position:
        """The client position of a 0-based row and code point column (a finding's, line made 0-based)."""
        return line, units(self.content(line)[:column], self.encoding)


def apply_change(text: str, start: Optional[Position], end: Optional[Position], new: str,
                 encoding: str = UTF16) -> str:
    """*text* after a ``didChange`` content change (no range: the whole text is replaced)."""
    if start is None or end is None:
        return new
    rows = Rows(text, encoding)
    begin, finish = rows.offset(start), rows.offset(end)
    return text[:begin] + new + text[max(begin, finish):]


def edits(old: str, new: str, encoding: str = UTF16) -> list[Edit]:
    """The edits that make *old* into *new*, as small as a diff of rows makes them: rows compared first, a
    changed run of rows compared again on their stripped text (so a block moved one level deeper becomes an
    indentation inserted on each row), and within each changed row or run only the characters between the
    common beginning and end replaced.  Never the whole text (unless every row changed).  Ranges refer to
    *old*, as LSP's ``TextEdit[]`` do; no two edits touch, and none splits a ``\r\n``."""
    if old == new:
        return []
    old_rows, new_rows = split_rows(old), split_rows(new)
    old_starts, new_starts = [0, *accumulate(map(len, old_rows))], [0, *accumulate(map(len, new_rows))]
    spans: list[tuple[int, int, str]] = []  # (start, end) in old, new text

    def replace(i1: int, i2: int, j1: int, j2: int) -> None:
        before, after = old[old_starts[i1]:old_starts[i2]], new[new_starts[j1]:new_starts[j2]]
        prefix = _common_prefix(before, after)
        suffix = _common_prefix(before[prefix:][::-1], after[prefix:][::-1])
        # Offsets into the unchanged beginning and end of the run are the same in both texts.
        start, finish = prefix, len(before) - suffix
        while 0 < start < len(before) and before[start - 1] == "\r" and before[start] == "\n":
            start -= 1  # never between \r and \n
        while 0 < finish < len(before) and before[finish - 1] == "\r" and before[finish] == "\n":
            finish += 1
        replacement = after[start: len(after) - (len(before) - finish)]
        if spans and spans[-1][1] == old_starts[i1] + start:  # touching the previous edit: one edit
            begin, _, text = spans.pop()
            spans.append((begin, old_starts[i1] + finish, text + replacement))
        else:
            spans.append((old_starts[i1] + start, old_starts[i1] + finish, replacement))

    rows = difflib.SequenceMatcher(None, old_rows, new_rows, autojunk=False)
    for tag, i1, i2, j1, j2 in rows.get_opcodes():
        if tag == "equal":
            continue
        if tag != "replace":
            replace(i1, i2, j1, j2)
            continue
        stripped = difflib.SequenceMatcher(None, [r.strip() for r in old_rows[i1:i2]],
                                           [r.strip() for r in new_rows[j1:j2]], autojunk=False)
        for inner, a1, a2, b1, b2 in stripped.get_opcodes():
            if inner == "equal":
                for k in range(a2 - a1):
                    replace(i1 + a1 + k, i1 + a1 + k + 1, j1 + b1 + k, j1 + b1 + k + 1)
            else:
                replace(i1 + a1, i1 + a2, j1 + b1, j1 + b2)
    positions = Rows(old, encoding)
    return [((positions.position(begin), positions.position(end)), text) for begin, end, text in spans
            if begin != end or text]


def _common_prefix(a: str, b: str) -> int:
    limit = min(len(a), len(b))
    index = 0
    while index < limit and a[index] == b[index]:
        index += 1
    return index
