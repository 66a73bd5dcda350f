"""The flake8 plugin: a thin adapter over the shared analysis.

flake8 does the selection (``--select``/``--extend-select``/``--ignore``)
and ``# noqa``; the opt-in rules are added to flake8's default ignore list,
so ``--extend-select=WSP105`` turns them on as users expect.  The plugin
checks the text for worker-API words before touching the tree, so files
that cannot hold a finding cost almost nothing.
"""

from __future__ import annotations

import ast
from typing import Any, Iterator, Optional

from .__version__ import __version__
from .rules import RULES

_SETTINGS: Optional[Any] = None


class Plugin:
    name = "winspawn-lint"
    version = __version__

    def __init__(self, tree: ast.AST, lines: list[str], filename: str) -> None:
        self._tree = tree
        self._lines = lines
        self._filename = filename

    @staticmethod
    def add_options(manager: Any) -> None:
        manager.add_option(
            "--winspawn-unresolved-workers", default="assume-workers", parse_from_config=True,
            choices=("assume-workers", "assume-none"),
            help="winspawn-lint: whether a worker count that cannot be resolved may be > 0 (default: %(default)s)",
        )
        manager.add_option(
            "--winspawn-spawn-apis", default="", parse_from_config=True, comma_separated_list=False,
            help="winspawn-lint: extra worker-starting calls, 'qualified.name[:workers-keyword]' separated by "
            "commas or newlines (data, never imported)",
        )
        manager.extend_default_ignore(sorted(code for code, rule in RULES.items() if not rule.default))

    @staticmethod
    def parse_options(options: Any) -> None:
        global _SETTINGS
        from .settings import Settings
        from .spawn_apis import from_config

        entries = []
        for item in str(getattr(options, "winspawn_spawn_apis", "") or "").replace("\n", ",").split(","):
            item = item.strip()
            if not item:
                continue
            name, _, workers = item.partition(":")
            entry: dict[str, Any] = {"name": name.strip()}
            if workers.strip():
                entry["workers"] = workers.strip()
            entries.append(entry)
        _SETTINGS = Settings(
            select=frozenset(RULES),
            unresolved_workers=getattr(options, "winspawn_unresolved_workers", "assume-workers"),
            extra_apis=from_config(entries, "winspawn-spawn-apis"),
        )

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        from . import analysis
        from .analysis.prefilter import may_have_findings
        from .settings import Settings

        settings = _SETTINGS or Settings(select=frozenset(RULES))
        text = "".join(self._lines)
        if not may_have_findings(text, settings.registry):
            return
        lines = text.splitlines()
        for finding in analysis.run(self._tree, lines, settings, self._filename, enabled=frozenset(RULES)):
            yield finding.line, finding.col, f"{finding.code} {finding.message}", type(self)
