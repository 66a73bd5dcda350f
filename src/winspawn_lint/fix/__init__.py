"""``--fix``: rewrite flagged code with libcst codemods (placeholder until the codemods land)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ..finding import Finding


@dataclass
class FixOutcome:
    text: str
    fixed: list[Finding] = field(default_factory=list)
    remaining: list[Finding] = field(default_factory=list)
    note: Optional[str] = None


def fix_text(text: str, filename: Optional[str], settings, unsafe: bool = False) -> FixOutcome:
    from .. import check_text

    return FixOutcome(text, [], check_text(text, filename, settings))
