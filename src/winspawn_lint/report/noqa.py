"""``# noqa`` with flake8's semantics, for the standalone CLI (flake8 applies its own).

- ``# noqa`` silences every code on the line; ``# noqa: WSP201,WSP2`` silences
  the codes listed and the codes they prefix.
- The comment may stand on any physical line of a multi-line statement or
  string: flake8 searches the whole token range a line belongs to.
- ``# flake8: noqa`` on a line of its own skips the file.

:func:`with_noqa` writes such a comment (the language server's "disable for this line").
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Iterable, Optional

from ..finding import Finding
from ..io.source import split_rows

NOQA_INLINE = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)
NOQA_FILE = re.compile(r"\s*# flake8[:=]\s*noqa", re.IGNORECASE)
_SPLIT = re.compile(r"[,\s]")


def file_is_skipped(lines: list[str]) -> bool:
    return any(NOQA_FILE.match(line) for line in lines)


def _line_mapping(source: str, lines: list[str]) -> dict[int, str]:
    """Line number -> the text flake8 searches for ``noqa`` (all lines of its token range)."""
    mapping: dict[int, str] = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return {}
    low, high = len(lines) + 2, -1
    for token in tokens:
        if token.type in (tokenize.ENDMARKER, tokenize.DEDENT):
            continue
        low, high = min(low, token.start[0]), max(high, token.end[0])
        if token.type in (tokenize.NL, tokenize.NEWLINE):
            joined = "\n".join(lines[low - 1: high])
            for number in range(low, high + 1):
                mapping[number] = joined
            low, high = len(lines) + 2, -1
    return mapping


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
        match = NOQA_INLINE.search(text or "")
        if match is None:
            kept.append(finding)
            continue
        codes_text = match.group("codes")
        if codes_text is None:
            continue
        codes = {c for c in _SPLIT.split(codes_text) if c}
        if finding.code in codes or finding.code.startswith(tuple(codes)):
            continue
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
