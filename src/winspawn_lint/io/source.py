"""Reading and parsing one file without ever crashing: every failure becomes a one-line reason.

Decoding follows PEP 263 (coding cookie, UTF-8 BOM); line endings are kept
as they are for the fixer, and split universally for line numbers.
"""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
from typing import Optional

from ..records import Record
from . import compact_tree

MAX_BYTES = 50 * 1024 * 1024  # larger files are not Python source anyone checks in


class SourceError(Exception):
    """A file that cannot be checked; ``str()`` is the one-line reason, ``at`` where the text stops being
    Python when that is known: (a notebook's cell or None, line, column), 1-based."""

    def __init__(self, message: str, at: Optional[tuple[Optional[int], int, int]] = None) -> None:
        super().__init__(message)
        self.at = at


class Source(Record):
    """A file's text as read."""

    __slots__ = ("text", "encoding", "bom", "original")

    def __init__(self, text: str, encoding: str, bom: bool, original: Optional[bytes] = None) -> None:
        self.text = text  # decoded, BOM removed, line endings as in the file
        self.encoding = encoding
        self.bom = bom
        self.original = original  # the bytes read, to detect a change on disk before a rewrite


_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_ROW = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str) -> list[str]:
    """The source lines as Python numbers them: ``str.splitlines()`` also breaks at form feeds, ``\\v``,
    ``\\x1c``-``\\x1e``, ``\\x85`` and ``\\u2028``/``\\u2029``, which the tokenizer does not (a ``^L`` line
    would shift every line number after it)."""
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def split_rows(text: str) -> list[str]:
    """The lines of :func:`split_lines`, each with its line end (the last may have none): joined, they are
    ``text`` again."""
    return _ROW.findall(text)


def replace_lines(text: str, lines: dict[int, str]) -> str:
    """*text* with the lines numbered in *lines* (1-based, as :func:`split_lines` numbers them) replaced, each
    keeping its own line end."""
    rows = split_rows(text)
    for number, line in lines.items():
        row = rows[number - 1]
        rows[number - 1] = line + row[len(row.rstrip("\r\n")):]
    return "".join(rows)


def decode(data: bytes) -> Source:
    if b"\0" in data:
        raise SourceError("contains a NUL byte (binary file?)")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        if not (error.msg or "").startswith("invalid or missing encoding declaration"):
            raise SourceError(f"bad coding declaration: {error.msg}") from None
        encoding = "utf-8"  # no cookie and not UTF-8 in the first two lines: the decode below says where
    bom = data.startswith(b"\xef\xbb\xbf")
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        hint = "" if _has_cookie(data) else " (and no coding declaration)"
        raise SourceError(f"not valid {encoding} at line {line}{hint}: {_short(error)}") from None
    except LookupError as error:
        raise SourceError(f"bad coding declaration: {_short(error)}") from None
    if bom and text.startswith("\ufeff"):
        text = text[1:]
    return Source(text, "utf-8" if encoding == "utf-8-sig" else encoding, bom, data)


def _has_cookie(data: bytes) -> bool:
    return any(re.match(rb"^[ \t\f]*#.*?coding[:=]", line) for line in data.splitlines()[:2])


def read(path: str) -> Source:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except IsADirectoryError:
        raise SourceError("is a directory") from None
    except OSError as error:
        raise SourceError(error.strerror or str(error)) from None
    if len(data) > MAX_BYTES:
        raise SourceError(f"larger than {MAX_BYTES // (1024 * 1024)} MB; skipped")
    return decode(data)


_NEWER_SYNTAX = (
    (re.compile(r"^\s*type\s+[A-Za-z_]\w*\s*(\[.*\])?\s*=", re.M), (3, 12), "a `type` statement (PEP 695)"),
    (re.compile(r"^\s*(async\s+)?def\s+\w+\s*\[", re.M), (3, 12), "type parameters (PEP 695)"),
    (re.compile(r"^\s*class\s+\w+\s*\[", re.M), (3, 12), "type parameters (PEP 695)"),
    (re.compile(r"^\s*except\s*\*", re.M), (3, 11), "`except*` (PEP 654)"),
)


def parse(source: Source, filename: str = "<unknown>") -> ast.Module:
    try:
        return compact_tree.parse(source.text, filename=filename)
    except SyntaxError as error:
        newer = _needs_newer_python(source.text, error)
        where = f"line {error.lineno}" if error.lineno else "file"
        at = (None, error.lineno, error.offset or 1) if error.lineno else None
        if newer:
            raise SourceError(f"{where}: uses {newer}; run winspawn-lint under that Python to check this file",
                              at) from None
        raise SourceError(f"syntax error at {where}: {error.msg}", at) from None
    except (MemoryError, RecursionError) as error:
        # The parser's own stack or the AST builder's depth limit: expressions nested thousands deep.
        raise SourceError(f"too deeply nested to parse ({_short(error) or type(error).__name__})") from None
    except ValueError as error:
        raise SourceError(f"cannot parse: {_short(error) or type(error).__name__}") from None


def _needs_newer_python(text: str, error: SyntaxError) -> Optional[str]:
    for pattern, version, what in _NEWER_SYNTAX:
        if sys.version_info < version and pattern.search(text):
            return f"{what}, which needs Python {version[0]}.{version[1]}+"
    if sys.version_info < (3, 12) and "f-string" in (error.msg or ""):
        return "an f-string form from PEP 701, which needs Python 3.12+"
    return None


def _short(error: BaseException) -> str:
    return str(error).splitlines()[0][:200] if str(error) else ""
