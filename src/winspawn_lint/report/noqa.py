"""``# noqa`` with flake8's semantics, for the standalone CLI (flake8 applies its own).

- ``# noqa`` silences every code on the line; ``# noqa: WSP201,WSP2`` silences
  the codes listed and the codes they prefix.
- The comment may stand on any physical line of a multi-line statement or
  string: flake8 searches the whole token range a line belongs to.
- ``# flake8: noqa`` on a line of its own skips the file.
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Iterable

from ..finding import Finding

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
