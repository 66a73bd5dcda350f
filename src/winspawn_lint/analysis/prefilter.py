"""A text scan that proves a file cannot hold a finding, so it is never parsed.

Every rule needs either a worker-starting API (named in the registry), a
main-guard look-alike, ``set_start_method``, or a torch ``Dataset`` subclass.
If none of those words occur in the text, the full pass finds nothing: a
test checks that over every fixture and over site-packages.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..spawn_apis import Registry

_ALWAYS = ("set_start_method", "__name__", "__file__", "Dataset", "multiprocess", "concurrent")


@lru_cache(maxsize=8)
def pattern_for(registry: Registry) -> "re.Pattern[str]":
    words = sorted({*registry.tokens(), *_ALWAYS}, key=len, reverse=True)
    return re.compile("|".join(re.escape(word) for word in words))


def may_have_findings(text: str, registry: Registry) -> bool:
    return pattern_for(registry).search(text) is not None
