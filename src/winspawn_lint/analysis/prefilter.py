"""A text scan that proves a file cannot hold a finding, so it is never parsed.

Every finding needs one of: a worker-starting API named in the registry (its
last name part, which also appears in any import or alias of it), a
main-guard look-alike, ``set_start_method``, or a ``Dataset`` class.  If the
text holds none of these words, the full pass finds nothing: a test checks
that over every fixture and over site-packages.

Speed matters more than elegance here (this runs on every file): one
alternation regex over the whole text is ten times slower than ``in``
scans, so each word is looked for with ``in`` first and confirmed as a whole
word only when present.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..spawn_apis import Registry

_ALWAYS_WORDS = ("set_start_method", "Dataset", "IterableDataset")
_DUNDERS = ("__name__", "__file__")
_COMPARISONS_AFTER = ("==", "!=", "is ", "is\t", "is(")
_COMPARISONS_BEFORE = ("==", "!=", " is", "\tis", ")is")


@lru_cache(maxsize=8)
def _words(registry: Registry) -> tuple[tuple[str, "re.Pattern[str]"], ...]:
    words = sorted({*registry.tokens(), *_ALWAYS_WORDS})
    return tuple((word, re.compile(r"\b" + re.escape(word) + r"\b")) for word in words)


def _compares_dunder(text: str) -> bool:
    """`__name__ == ...` or `... == __name__` (and !=, is) anywhere: a possible (broken) main guard."""
    for dunder in _DUNDERS:
        start = text.find(dunder)
        while start != -1:
            after = text[start + len(dunder): start + len(dunder) + 8].lstrip(" \t")
            before = text[max(0, start - 8): start].rstrip(" \t")
            if after.startswith(_COMPARISONS_AFTER) or before.endswith(_COMPARISONS_BEFORE):
                return True
            start = text.find(dunder, start + 1)
    return False


def may_have_findings(text: str, registry: Registry) -> bool:
    for word, pattern in _words(registry):
        if word in text and pattern.search(text):
            return True
    return _compares_dunder(text)
