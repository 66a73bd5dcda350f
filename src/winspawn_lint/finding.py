"""The one record every check produces and every front end prints."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from .rules import RULES, Rule


@dataclass(frozen=True)
class Finding:
    """A hazard at a place in a file.

    Lines are 1-based; columns are 0-based *character* offsets (stdlib ``ast``
    gives UTF-8 byte offsets; :mod:`winspawn_lint.analysis.positions` converts
    them once, so every front end and the fixer agree).
    """

    code: str
    line: int
    col: int
    end_line: int
    end_col: int
    args: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)
    # What the fixer needs to find the node again (e.g. the lambda's own span);
    # opaque to front ends.
    fix_hint: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    #: in a notebook: the cell (1-based, every cell counted, as ruff counts); ``line`` is then the line in it
    cell: Optional[int] = None

    @property
    def rule(self) -> Rule:
        return RULES[self.code]

    @property
    def name(self) -> str:
        return self.rule.name

    @property
    def message(self) -> str:
        try:
            return self.rule.message.format_map(_Defaults(self.args))
        except (KeyError, IndexError, ValueError):  # a malformed template must not crash a run
            return self.rule.summary

    def sort_key(self) -> tuple[int, int, int, str]:
        return (self.cell or 0, self.line, self.col, self.code)


class _Defaults(dict):
    def __missing__(self, key: str) -> str:
        return ""
