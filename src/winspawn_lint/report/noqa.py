"""``# noqa`` with flake8's semantics, for the standalone CLI (flake8 applies its own), and ``--add-noqa``.

- ``# noqa`` silences every code on the line; ``# noqa: WSP201,WSP2`` silences
  the codes listed and the codes they prefix.
- flake8 searches the whole token range a line belongs to: the lines of a
  multi-line string or of a backslash-continued statement are one range (a
  bracketed statement is not: the tokenizer ends a range at each line end).
- ``# flake8: noqa`` on a line of its own skips the file.

:func:`with_noqa` writes such a comment (the language server's "disable for this line").

``--add-noqa`` writes the directive where flake8 reads it: at the end of the last line of the finding's range
(after a multi-line string closes, on the last line of a continued statement), merging the codes into a
``# noqa: ...`` already there.
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Iterable, Optional

from ..finding import Finding
from ..io.source import split_lines, split_rows

NOQA_INLINE = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)
NOQA_FILE = re.compile(r"\s*# flake8[:=]\s*noqa", re.IGNORECASE)
_SPLIT = re.compile(r"[,\s]")
_LINE_END = re.compile(r"\r\n?")


def file_is_skipped(lines: list[str]) -> bool:
    return any(NOQA_FILE.match(line) for line in lines)


def _line_ranges(source: str, lines: list[str]) -> dict[int, tuple[int, int]]:
    """Line number -> the (first, last) line of the token range flake8 searches for its ``noqa``."""
    ranges: dict[int, tuple[int, int]] = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(_universal(source)).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return {}
    low, high = len(lines) + 2, -1
    for token in tokens:
        if token.type in (tokenize.ENDMARKER, tokenize.DEDENT):
            continue
        low, high = min(low, token.start[0]), max(high, token.end[0])
        if token.type in (tokenize.NL, tokenize.NEWLINE):
            for number in range(low, high + 1):
                ranges[number] = (low, high)
            low, high = len(lines) + 2, -1
    return ranges


def _universal(source: str) -> str:
    """The text with every line end a ``\\n``, as flake8 reads a file (universal newlines): ``StringIO.readline``
    would not end a line at a lone ``\\r``, and the token ranges would then not number lines as Python does."""
    return _LINE_END.sub("\n", source) if "\r" in source else source


def _line_mapping(source: str, lines: list[str]) -> dict[int, str]:
    """Line number -> the text flake8 searches for ``noqa`` (all lines of its token range)."""
    return {number: "\n".join(lines[low - 1: high]) for number, (low, high) in _line_ranges(source, lines).items()}


def _silenced(code: str, text: str) -> bool:
    """Whether a ``# noqa`` in *text* (the first one, as flake8 reads it) silences *code*."""
    match = NOQA_INLINE.search(text)
    if match is None:
        return False
    codes_text = match.group("codes")
    if codes_text is None:
        return True
    codes = {c for c in _SPLIT.split(codes_text) if c}
    return code in codes or code.startswith(tuple(codes))


def filter_findings(findings: Iterable[Finding], source: str, lines: list[str]) -> list[Finding]:
    findings = list(findings)
    if not findings or "noqa" not in source.lower():
        return findings
    if file_is_skipped(lines):
        return []
    mapping = _line_mapping(source, lines)
    kept = []
    for finding in findings:
        text = mapping.get(finding.line)
        if text is None and 1 <= finding.line <= len(lines):
            text = lines[finding.line - 1]
        if not _silenced(finding.code, text or ""):
            kept.append(finding)
    return kept


def with_noqa(source: str, line: int, code: str, python: Optional[str] = None) -> Optional[str]:
    """*source* with ``code`` silenced on *line* (1-based), or None when it is already silenced there or the
    text does not tokenize.

    An existing ``# noqa: ...`` anywhere in the line's statement gets the code added (``# noqa: E501, WSP201``);
    otherwise ``  # noqa: CODE`` ends the first physical line from *line* on that can end in a comment (not one
    inside a multi-line string, nor one continued by a backslash), where flake8 and :func:`filter_findings`
    find it.  *python*: the same rows as Python when *source* is not (a notebook cell, its IPython syntax
    masked by :mod:`..io.notebook`)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(python if python is not None else source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    low, high, first = None, -1, 0
    for index, token in enumerate(tokens):  # the token range of *line*'s statement, as flake8 takes it
        if token.type in (tokenize.ENDMARKER, tokenize.DEDENT):
            continue
        if low is None:
            low, first = token.start[0], index
        high = max(high, token.end[0])
        if token.type in (tokenize.NL, tokenize.NEWLINE):
            if low <= line <= high:
                return _add_noqa(source, code, line, tokens[first: index + 1])
            low, high = None, -1
    return None


def _add_noqa(source: str, code: str, line: int, tokens: list[tokenize.TokenInfo]) -> Optional[str]:
    rows = split_rows(source)
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        match = NOQA_INLINE.search(token.string)
        if match is None:
            continue
        codes_text = match.group("codes")
        if codes_text is None:
            return None  # a bare `# noqa` silences every code
        codes = {c for c in _SPLIT.split(codes_text) if c}
        if code in codes or code.startswith(tuple(codes)):
            return None
        row, column = token.start[0] - 1, token.start[1] + match.start("codes") + len(codes_text.rstrip(", \t"))
        rows[row] = f"{rows[row][:column]}, {code}{rows[row][column:]}"
        return "".join(rows)
    ends = sorted(t.start[0] for t in tokens if t.type in (tokenize.NL, tokenize.NEWLINE))
    row = next((r for r in ends if r >= line), ends[-1]) - 1
    if row >= len(rows):
        return None
    text = rows[row]
    body = text.rstrip("\r\n")
    code_part = body.rstrip(" \t\f")
    rows[row] = f"{code_part}  # noqa: {code}{text[len(body):]}"
    return "".join(rows)


def noqa_edits(source: str, findings: Iterable[Finding]) -> tuple[dict[int, str], int]:
    """``--add-noqa``: line number -> that line with the ``# noqa: CODES`` that silences *findings* (their
    ranges' last lines, without line ends), and how many findings no comment can silence (a line whose first
    ``# noqa`` is text inside a string, which flake8 would read before any comment added after it)."""
    lines = split_lines(source)
    ranges = _line_ranges(source, lines)
    comments = _comments(source)
    wanted: dict[int, set[str]] = {}
    for finding in findings:
        last = ranges.get(finding.line, (finding.line, finding.line))[1]
        wanted.setdefault(last, set()).add(finding.code)
    edits: dict[int, str] = {}
    missed = 0
    for number, codes in sorted(wanted.items()):
        if not 1 <= number <= len(lines):
            missed += len(codes)
            continue
        line = _with_codes(lines[number - 1], sorted(codes), comments.get(number))
        first = ranges.get(number, (number, number))[0]
        joined = "\n".join([*lines[first - 1: number - 1], line])
        if all(_silenced(code, joined) for code in codes):
            edits[number] = line
        else:
            missed += len(codes)
    return edits, missed


def _comments(source: str) -> dict[int, int]:
    """Line number -> the column of the comment that ends it."""
    found = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(_universal(source)).readline):
            if token.type == tokenize.COMMENT:
                found[token.start[0]] = token.start[1]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return found


def _with_codes(line: str, codes: list[str], comment_col: Optional[int]) -> str:
    """*line* with *codes* added to the ``# noqa:`` of its comment, or a new ``  # noqa: CODES`` after it."""
    if comment_col is not None:
        comment = line[comment_col:]
        match = NOQA_INLINE.search(comment)
        if match is not None and match.group("codes") is not None:
            present = [c for c in _SPLIT.split(match.group("codes")) if c]
            merged = ", ".join([*present, *(c for c in codes if c not in present)])
            tail = comment[match.end():]
            gap = " " if tail and match.group("codes")[-1].isspace() else ""
            return line[:comment_col] + comment[:match.start()] + f"# noqa: {merged}" + gap + tail
    return line.rstrip(" \t") + f"  # noqa: {', '.join(codes)}"
