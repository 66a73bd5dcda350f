"""The one record every check produces and every front end prints."""

from __future__ import annotations

import re
from typing import Any, Mapping, Optional

from .records import Value
from .rules import RULES, FixSafety, Rule


#: A line of a notebook's module named inside a message (``notebook_line``): the module's line numbers are not the
#: user's, so the notebook front end says it as "cell N, line L" (``io.notebook.to_cells``).
NOTEBOOK_LINE = re.compile("\x00([0-9]+)\x00")


def notebook_line(line: int) -> str:
    return f"\x00{line}\x00"


class Finding(Value):
    """A hazard at a place in a file (equal to another at the same place with the same code).

    Lines are 1-based; columns are 0-based *character* offsets (stdlib ``ast``
    gives UTF-8 byte offsets; :mod:`winspawn_lint.analysis.positions` converts
    them once, so every front end and the fixer agree).
    """

    __slots__ = ("code", "line", "col", "end_line", "end_col", "args", "fix_hint", "cell", "platforms",
                 "fix_safety")
    _compared = ("code", "line", "col", "end_line", "end_col", "cell")

    def __init__(self, code: str, line: int, col: int, end_line: int, end_col: int,
                 args: Optional[Mapping[str, str]] = None, fix_hint: Optional[Mapping[str, Any]] = None,
                 cell: Optional[int] = None, platforms: Optional[tuple[str, ...]] = None,
                 fix_safety: Optional[FixSafety] = None) -> None:
        self.code = code
        self.line = line
        self.col = col
        self.end_line = end_line
        self.end_col = end_col
        self.args = args if args is not None else {}
        # What the fixer needs to find the node again (e.g. the lambda's own span);
        # opaque to front ends.
        self.fix_hint = fix_hint if fix_hint is not None else {}
        #: in a notebook: the cell (1-based, every cell counted, as ruff counts); ``line`` is then the line in it
        self.cell = cell
        #: where it breaks: ids of :data:`.spawn_apis.PLATFORMS` (None: not platform-specific, or unknown)
        self.platforms = platforms
        # The fix's safety for this file when it differs from the rule's (the main-guard wrap of a file that
        # nothing imports is safe: see winspawn_lint.analysis.importers).
        self.fix_safety = fix_safety

    @property
    def rule(self) -> Rule:
        return RULES[self.code]

    @property
    def safety(self) -> FixSafety:
        """How far ``--fix`` may go for this finding."""
        return self.fix_safety or self.rule.fix_safety

    @property
    def name(self) -> str:
        return self.rule.name

    @property
    def message(self) -> str:
        try:
            return self.rule.message.format_map(_Defaults(self.args))
        except (KeyError, IndexError, ValueError):  # a malformed template must not crash a run
            return self.rule.summary

    @property
    def platform_suffix(self) -> str:
        """`` [Windows, macOS, Linux ≥3.14]``, or '' when the finding is not platform-specific."""
        from .spawn_apis import platform_suffix

        suffix = platform_suffix(self.platforms)
        return " " + suffix if suffix else ""

    def sort_key(self) -> tuple[int, int, int, str]:
        return (self.cell or 0, self.line, self.col, self.code)


class _Defaults(dict):
    def __missing__(self, key: str) -> str:
        return ""
