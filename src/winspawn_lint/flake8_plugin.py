"""The flake8 plugin: a thin adapter over the shared analysis.

flake8 does the selection (``--select``/``--extend-select``/``--ignore``)
and ``# noqa``; the opt-in rules are added to flake8's default ignore list,
so ``--extend-select=WSP105`` turns them on as users expect.  The plugin
checks the text for worker-API words before touching the tree, so files
that cannot hold a finding cost almost nothing.
"""

from __future__ import annotations

import ast
import sys
from typing import Any, Iterator, NoReturn, Optional

from .__version__ import __version__
from .rules import RULES

_SETTINGS: Optional[Any] = None
#: The reader of the project's files for this flake8 process (flake8 checks each file with a new Plugin).
_PROJECT: Optional[Any] = None


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
            "commas or newlines, or one TOML inline table per line with the keys of [tool.winspawn-lint] "
            "spawn-api (data, never imported)",
        )
        manager.add_option(
            "--winspawn-unpicklable", default="", parse_from_config=True, comma_separated_list=False,
            help="winspawn-lint: extra calls whose results cannot be pickled (a connection, a handle), qualified "
            "names separated by commas or newlines (data, never imported)",
        )
        manager.add_option(
            "--winspawn-target-platforms", default="windows,macos,linux", parse_from_config=True,
            help="winspawn-lint: where the code runs (windows, macos, linux, comma-separated); findings that cannot "
            "break on any of them are dropped (default: %(default)s)",
        )
        manager.add_option(
            "--winspawn-target-version", default="", parse_from_config=True,
            help="winspawn-lint: the oldest Python the code supports (py311 or 3.11); older than 3.14 makes "
            "'linux' include Linux's fork default",
        )
        manager.extend_default_ignore(sorted(code for code, rule in RULES.items() if not rule.default))

    @staticmethod
    def parse_options(options: Any) -> None:
        global _SETTINGS
        from .settings import UNRESOLVED_POLICIES, Settings, parse_platforms, parse_version
        from .spawn_apis import unpicklable_from_config

        # flake8 checks `choices` on the command line but not in setup.cfg/tox.ini/.flake8.
        policy = getattr(options, "winspawn_unresolved_workers", "assume-workers")
        if policy not in UNRESOLVED_POLICIES:
            _config_error(f"winspawn-unresolved-workers: expected one of {', '.join(UNRESOLVED_POLICIES)}, "
                          f"got {policy!r}")
        try:
            extra = _spawn_apis(str(getattr(options, "winspawn_spawn_apis", "") or ""))
            names = str(getattr(options, "winspawn_unpicklable", "") or "").replace(",", "\n").split()
            unpicklable = unpicklable_from_config(names, "winspawn-unpicklable")
        except ValueError as error:
            _config_error(str(error))
        try:
            platforms = parse_platforms(str(getattr(options, "winspawn_target_platforms", "") or "windows,macos,linux"))
            version_text = str(getattr(options, "winspawn_target_version", "") or "").strip()
            version = parse_version(version_text) if version_text else None
        except ValueError as error:
            _config_error(f"winspawn-{error}")
        _SETTINGS = Settings(select=frozenset(RULES), unresolved_workers=policy, extra_apis=extra,
                             extra_unpicklable=unpicklable, target_platforms=platforms, target_version=version)

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        global _PROJECT
        from .analysis.project import Project
        from .pipeline import check
        from .settings import Settings

        settings = _SETTINGS or Settings(select=frozenset(RULES))
        if _PROJECT is None:
            _PROJECT = Project(settings.registry)
        # flake8 selects codes and applies `# noqa` itself; the text is rejoined so that lines are split and
        # columns counted exactly as the CLI does.
        # (flake8 may have read the text from stdin under the file's name, as an editor sends its unsaved buffer:
        # whether it is the file's is asked only when the text is analysed)
        checked = check("".join(self._lines), self._filename, settings, project=_PROJECT, tree=self._tree,
                        noqa=False, enabled=frozenset(RULES), on_disk=None)
        for finding in checked.findings:
            yield finding.line, finding.col, f"{finding.code} {finding.message}", type(self)


def _spawn_apis(text: str) -> tuple[Any, ...]:
    """Registry entries from ``--winspawn-spawn-apis``.

    ``qualified.name[:workers-keyword]`` entries separated by commas or newlines;
    a line that starts with ``{`` is one TOML inline table with the keys of
    ``[tool.winspawn-lint] spawn-api`` (``payload``, ``kind``, ``pickler``...)::

        winspawn-spawn-apis =
            mylib.parallel_map:n_jobs
            {name = "mylib.run", workers = "n_jobs", payload = ["fn:0"]}
    """
    from .settings import tomllib
    from .spawn_apis import from_config

    entries: list[Any] = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                entries.append(tomllib.loads(f"entry = {line}")["entry"])
            except tomllib.TOMLDecodeError as error:
                raise ValueError(f"winspawn-spawn-apis: not a TOML inline table: {line} ({error})") from None
            continue
        for item in line.split(","):
            if not item.strip():
                continue
            name, _, workers = item.strip().partition(":")
            entry: dict[str, Any] = {"name": name.strip()}  # an empty name is reported by from_config
            if workers.strip():
                entry["workers"] = workers.strip()
            entries.append(entry)
    return from_config(entries, "winspawn-spawn-apis")


def _config_error(message: str) -> NoReturn:
    # One line and exit status 2, like flake8's own errors for bad options (no traceback).
    sys.stderr.write(f"flake8: error: {message}\n")
    raise SystemExit(2)
