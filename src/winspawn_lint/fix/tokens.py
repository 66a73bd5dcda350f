"""What the codemods read from the tokenizer: bracket depth, the rows that begin inside a string, and the tokens
that carry meaning (to prove a rewrap changed only whitespace)."""

from __future__ import annotations

import io
import tokenize

FSTRING_START = getattr(tokenize, "FSTRING_START", -1)  # Python 3.12 tokenizes f-strings
FSTRING_MIDDLE = getattr(tokenize, "FSTRING_MIDDLE", -1)
FSTRING_END = getattr(tokenize, "FSTRING_END", -1)


def depth_change(token: tokenize.TokenInfo) -> int:
    """+1 for a bracket the token opens, -1 for one it closes, 0 otherwise."""
    if token.type != tokenize.OP:  # brackets inside a 3.12 f-string are OP tokens between FSTRING_* ones
        return 0
    return 1 if token.string in "([{" else -1 if token.string in ")]}" else 0


def rows_inside(token: tokenize.TokenInfo) -> range:
    """The rows (1-based) that begin inside *token*'s text: those after the first of a string spanning lines."""
    if token.type in (tokenize.STRING, FSTRING_MIDDLE):
        return range(token.start[0] + 1, token.end[0] + 1)
    return range(0)


def significant(code: str, strings: bool = True) -> list[tuple[int, str]]:
    """The tokens of ``code`` other than line breaks and indentation (and, ``strings=False``, string literals:
    what an f-string holds between its braces stays); empty when ``code`` does not tokenize."""
    skip = {tokenize.NL, tokenize.INDENT, tokenize.DEDENT}
    if not strings:
        skip |= {tokenize.STRING, FSTRING_START, FSTRING_MIDDLE, FSTRING_END}
    try:
        return [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(code).readline)
                if t.type not in skip]
    except (tokenize.TokenError, SyntaxError):
        return []
