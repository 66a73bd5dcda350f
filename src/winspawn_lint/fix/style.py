"""The layout rules fixed code follows, so that pycodestyle finds nothing new in it: the blank lines around
top-level definitions (E302, E305), and statements moved one block deeper rewrapped where a line would newly
pass the project's maximum line length (which :mod:`winspawn_lint.io.line_length` reads)."""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
from typing import Optional

from ..io.source import split_rows
from ..records import Record
from .tokens import FSTRING_END, FSTRING_START, depth_change, rows_inside, significant


def wrap_call(prefix: str, callee: str, args: list[str], column: int, step: str, limit: int) -> str:
    """``{prefix}{callee}(arg, ...)\n`` for a statement that starts at ``column``, wrapped (hanging indent
    ``step``, as pycodestyle's E1 accepts) when longer than ``limit``: all arguments on one continuation
    line, else one per line.  Continuation lines are indented relative to the statement (libcst adds the
    block's own indentation)."""
    one = f"{prefix}{callee}({', '.join(args)})"
    if column + len(one) <= limit or not args:
        return one + "\n"
    joined = f"{step}{', '.join(args)})"
    if column + len(joined) <= limit:
        return f"{prefix}{callee}(\n{joined}\n"
    return f"{prefix}{callee}(\n" + ",\n".join(f"{step}{arg}" for arg in args) + ")\n"


def keeps_to(rows: list[str], limit: int) -> bool:
    """Whether a file (its rows) keeps to the maximum line length ``limit``: at most one row in a hundred is longer
    (as pycodestyle's E501 counts).  Code a fix moves deeper is rewrapped only in such a file: in one that does not,
    a rewrapped row stands out among the long ones."""
    allowed = sum(1 for row in rows if row.strip()) // 100
    for row in rows:
        if len(row) > limit and _too_long(row.rstrip("\r\n"), limit):
            allowed -= 1
            if allowed < 0:
                return False
    return True


def line_limit(rows: list[str], limit: int) -> int:
    """The length code a fix writes keeps to in a file of ``rows``: ``limit``, or no limit in a file that does not
    keep to it (:func:`keeps_to`)."""
    return limit if keeps_to(rows, limit) else sys.maxsize


def indent_deeper(code: str, indent: str, limit: Optional[int]) -> tuple[str, Optional[str]]:
    """``code`` — top-level statements at column 0, ``\\n`` line ends — as it stands in a block indented by
    ``indent`` (a function or guard body): ``indent`` before every row that is not blank and does not begin inside
    a string, and (unless ``limit`` is None) no line newly longer than ``limit``.

    Returns ``(code, None)``, or ``(code, why)`` when a line that fits now would not fit there and has no clean
    wrap.  A newly long line is broken the way black and pycodestyle accept (see :func:`_break_row`), as a last
    resort by splitting a string literal inside brackets in two (:func:`_split_string`).  Tokens and comments
    are kept byte for byte, and strings keep their values (checked: the tokens other than strings are unchanged,
    and so is the syntax tree); a comment, a string outside brackets, a long name, a line after a backslash, or
    the first line of a statement already spread over several lines is not rewrapped.
    """
    lines = split_rows(code)
    shift = len(indent)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return code, "it could not be tokenized"
    in_string: set[int] = set()  # rows (1-based) that begin inside a string spanning lines
    after_backslash: set[int] = set()  # rows continuing the one before through a backslash
    rows: dict[int, _Row] = {}
    current: list[tokenize.TokenInfo] = []
    for token in tokens:
        in_string.update(rows_inside(token))
        if token.type in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER) \
                and not current:
            continue
        # Inside brackets a line break is an NL token: a token on a later row without one follows a backslash.
        if current and current[-1].type not in (tokenize.NL, tokenize.COMMENT) and token.start[0] > current[-1].end[0]:
            after_backslash.add(token.start[0])
        current.append(token)
        if token.type == tokenize.NEWLINE:
            rows.update(_rows(current))
            current = []
    replaced: dict[int, str] = {}
    for row, line in enumerate(lines, 1):
        if limit is None or row in in_string or _too_long(line, limit) or not _too_long(indent + line, limit):
            continue
        quoted = f"`{line.strip()[:30]}…`" if len(line.strip()) > 30 else f"`{line.strip()}`"
        if row not in rows:
            return code, f"the comment {quoted} would be longer than {limit} columns"
        wrapped = None if row in after_backslash else _break_row(line.rstrip("\r\n"), rows[row], limit - shift)
        if wrapped is None:
            return code, f"the line {quoted} would be longer than {limit} columns and has no clean break"
        replaced[row] = wrapped + "\n"
    if replaced:
        new = "".join(replaced.get(row, line) for row, line in enumerate(lines, 1))
        # A wrap only moves whitespace, or splits a string literal in two (implicit concatenation): the tokens
        # other than strings are the same, and so is the syntax tree (where the two parts are one value again).
        if significant(new) != significant(code) and not (
                significant(new, strings=False) == significant(code, strings=False) and _same_tree(new, code)):
            return code, "wrapping its long lines would change its tokens"
    # A wrapped row's new rows hold no string that spans rows: the rows inside strings are the original's.
    return "".join(line if row in in_string else "".join(
        part if not part.strip() else indent + part for part in split_rows(replaced.get(row, line)))
        for row, line in enumerate(lines, 1)), None


def _same_tree(one: str, other: str) -> bool:
    try:
        return ast.dump(ast.parse(one)) == ast.dump(ast.parse(other))
    except (SyntaxError, ValueError):
        return False


class _Row(Record):
    """The tokens of one physical row of a logical line (comments included, line breaks not)."""

    __slots__ = ("tokens", "depth", "first", "alone", "header")

    def __init__(self, tokens: list, depth: int, first: bool, alone: bool, header: bool) -> None:
        self.tokens = tokens
        self.depth = depth  # bracket depth at the row's start
        self.first = first  # the logical line's first row
        self.alone = alone  # the logical line's only row
        self.header = header  # the logical line ends with `:` (a block follows it)


def _rows(logical: list[tokenize.TokenInfo]) -> dict[int, _Row]:
    code = [t for t in logical if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT)]
    header = bool(code) and code[-1].string == ":"
    by_row: dict[int, list] = {}
    depth_at: dict[int, int] = {}
    depth = 0
    for token in logical:
        if token.type in (tokenize.NL, tokenize.NEWLINE):
            continue
        if token.start[0] not in by_row:
            by_row[token.start[0]] = []
            depth_at[token.start[0]] = depth
        by_row[token.start[0]].append(token)
        depth += depth_change(token)
    first = min(by_row) if by_row else 0
    return {row: _Row(tokens, depth_at[row], row == first, len(by_row) == 1, header)
            for row, tokens in by_row.items()}


_NOQA = re.compile(r"# no(?:qa|pep8)\b", re.I)


def _too_long(line: str, limit: int) -> bool:
    """Whether pycodestyle's E501 reports ``line`` (a comment that is one long word, a URL say, and a line
    marked ``# noqa`` are exempt there)."""
    line = line.rstrip()
    if len(line) <= limit or _NOQA.search(line):
        return False
    chunks = line.split()
    return not (len(chunks) == 2 and chunks[0] == "#" and len(line) - len(chunks[-1]) < limit - 7)


def _break_row(line: str, row: _Row, limit: int) -> Optional[str]:
    """``line`` broken into rows of at most ``limit`` columns, as pycodestyle's E1 accepts, or None.

    In order: a continuation row's items moved to more rows at the row's own indentation, at its commas; the
    row broken after the opening bracket that holds the most text, with a hanging indent (4, or 8 on the first
    row before a block) and the bracket's contents on one row, else spread over rows at their commas.  Only a
    row that leaves no bracket open for the rows after it (whose indentation would depend on it), and not the
    first row of a logical line already spread over several (the same reason).
    """
    indent = line[:len(line) - len(line.lstrip())]
    if "\t" in indent or (row.first and not row.alone):
        return None
    code = [t for t in row.tokens if t.type != tokenize.COMMENT]
    pairs: list[tuple[int, int]] = []  # brackets opened and closed on the row, outermost only
    inner: dict[int, list[int]] = {}  # opener -> the commas directly inside
    lambdas: set[int] = set()  # openers with a lambda directly inside (its commas are not items)
    row_commas: list[int] = []  # commas between the row's items (depth of the row's start)
    stack: list[int] = []
    dipped = False
    for index, token in enumerate(code):
        change = depth_change(token)
        if change > 0:
            stack.append(index)
        elif change < 0:
            if not stack:
                dipped = True  # closes a bracket opened on an earlier row: later commas are not its items
                continue
            opener = stack.pop()
            if not stack:
                pairs.append((opener, index))
        elif len(stack) == 1 and token.type == tokenize.OP and token.string == ",":
            inner.setdefault(stack[0], []).append(index)
        elif len(stack) == 1 and token.type == tokenize.NAME and token.string == "lambda":
            lambdas.add(stack[0])
        elif not stack and not dipped and row.depth > 0 and token.string == ",":
            row_commas.append(index)
    if stack:
        return None
    if row_commas:
        packed = _pack(line, code, [0, *(c + 1 for c in row_commas)], row_commas, len(code), indent, limit)
        if packed is not None:
            return packed
    hang = indent + " " * (8 if row.first and row.header else 4)
    pairs = [p for p in pairs if p[1] > p[0] + 1]
    pairs.sort(key=lambda p: (code[p[0]].end[1] - code[p[1]].start[1], p[0]))  # most text first, then leftmost
    for opener, _ in pairs:
        head, body = line[:code[opener].end[1]], line[code[opener + 1].start[1]:]
        if len(head) <= limit and len(hang) + len(body) <= limit:
            return f"{head}\n{hang}{body}"
    for opener, closer in pairs:
        if opener in lambdas or opener not in inner or len(line[:code[opener].end[1]]) > limit:
            continue
        starts = [opener + 1, *(c + 1 for c in inner[opener])]
        packed = _pack(line, code, starts, inner[opener], closer, hang, limit)
        if packed is not None:
            return f"{line[:code[opener].end[1]]}\n{packed}"
    return _split_string(line, code, row.depth, limit)


_PREFIX = re.compile(r"""([rRbBuUfF]*)(['"])""")


def _split_string(line: str, code: list, depth: int, limit: int) -> Optional[str]:
    """``line`` with its longest string literal inside brackets split in two after a space, the second part on
    the next row aligned with the first (pycodestyle lines up a string with the string above it), or None.

    A part with no replacement field loses an f-string's ``f`` (pyflakes' F541), its ``{{``/``}}`` undone."""
    spans: list[tuple[int, int]] = []  # (start, end) columns of the literals at bracket depth >= 1
    nesting, begun = 0, (0, 0)  # 3.12 tokenizes an f-string as FSTRING_START ... FSTRING_END
    for token in code:
        if token.type == FSTRING_START:
            begun = begun if nesting else token.start
            nesting += 1
        elif token.type == FSTRING_END:
            nesting -= 1
            if nesting == 0 and depth > 0 and begun[0] == token.end[0]:
                spans.append((begun[1], token.end[1]))
        elif nesting == 0:
            if token.type == tokenize.STRING and depth > 0 and token.start[0] == token.end[0]:
                spans.append((token.start[1], token.end[1]))
            depth += depth_change(token)
    for start, end in sorted(spans, key=lambda span: span[0] - span[1]):  # the longest first
        literal = line[start:end]
        match = _PREFIX.match(literal)
        if match is None or literal[match.end() - 1:match.end() + 2] in ('"""', "'''"):
            continue
        prefix, quote = match.groups()
        content = literal[match.end():-1]
        formatted = "f" in prefix.lower()
        for cut in reversed(_cuts(content, formatted, "r" in prefix.lower())):
            head = f"{line[:start]}{_part(prefix, quote, content[:cut], formatted)}"
            tail = f"{' ' * start}{_part(prefix, quote, content[cut:], formatted)}{line[end:]}"
            if len(head) <= limit and len(tail) <= limit:
                return f"{head}\n{tail}"
    return None


def _cuts(content: str, formatted: bool, raw: bool) -> list[int]:
    """Where *content* (a string literal's text between its quotes) can be split: after a space, outside an
    f-string's replacement fields and a ``\\N{...}`` escape."""
    cuts, fields, index = [], 0, 0
    while index < len(content):
        char = content[index]
        if char == "\\" and not raw:
            if content.startswith("N{", index + 1):
                closing = content.find("}", index)
                index = len(content) if closing < 0 else closing + 1
                continue
            index += 2
            continue
        if formatted and char in "{}":
            if fields == 0 and content.startswith(char * 2, index):
                index += 2
                continue
            fields += 1 if char == "{" else -1
        elif char == " " and fields == 0 and 0 < index + 1 < len(content):
            cuts.append(index + 1)
        index += 1
    return cuts


def _part(prefix: str, quote: str, text: str, formatted: bool) -> str:
    if formatted and "{" not in text.replace("{{", "").replace("}}", ""):
        prefix = prefix.replace("f", "").replace("F", "")
        text = text.replace("{{", "{").replace("}}", "}")
    return f"{prefix}{quote}{text}{quote}"


def _pack(line: str, code: list, starts: list[int], commas: list[int], end: int, indent: str,
          limit: int) -> Optional[str]:
    """The items ``line[code[start] .. comma]`` (the last one running to the end of the line) on rows at
    ``indent``, as many on a row as fit in ``limit``, or None when one does not fit alone."""
    pieces = [line[code[a].start[1]:code[b].end[1]] for a, b in zip(starts, commas)]
    last = line[code[starts[-1]].start[1]:] if starts[-1] < len(code) else line[code[-1].end[1]:]
    if starts[-1] >= end:  # a trailing comma: what follows it stays on the last item's row
        pieces[-1] += last
    else:
        pieces.append(last)
    rows: list[str] = []
    for piece in pieces:
        if rows and len(rows[-1]) + 1 + len(piece) <= limit:
            rows[-1] += " " + piece
        elif len(indent) + len(piece) <= limit:
            rows.append(indent + piece)
        else:
            return None
    return "\n".join(rows)
