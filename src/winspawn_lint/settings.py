"""Settings shared by the front ends: rule selection, policies, registry extensions.

The CLI reads ``[tool.winspawn-lint]`` from the nearest ``pyproject.toml``
(walking up from the first checked path, as ruff does: :func:`configured`) and lets flags
override it; the language server reads it the same way for each file it checks; the flake8
plugin gets the same keys from flake8's own config.
Configuration is data: nothing in it is ever imported or executed.
"""

from __future__ import annotations

import difflib
import fnmatch
import os
import re
import sys
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

from .records import Value
from .rules import DEFAULT_SELECT, expand
from .spawn_apis import (BUILTIN_APIS, LINUX_313, LINUX_314, MACOS, UNPICKLABLE_CALLS, WINDOWS, Registry, SpawnAPI,
                         Unpicklable, from_config, unpicklable_from_config)


UNRESOLVED_POLICIES = ("assume-workers", "assume-none")
TARGET_PLATFORMS = ("windows", "macos", "linux")
DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".bzr", ".tox", ".nox", ".venv", "venv", ".env", "env", "__pycache__",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", "build", "dist", "node_modules", "site-packages",
    ".eggs", "*.egg-info", ".ipynb_checkpoints", ".winspawn_lint_cache",
)


class ConfigError(ValueError):
    """A bad configuration key or value; the message names it."""


class Settings(Value):
    # (a __dict__, not slots: the cached properties below keep what they derive in it)
    _fields = ("select", "unresolved_workers", "extra_apis", "extra_unpicklable", "exclude", "extend_exclude",
               "per_file_ignores", "root", "target_platforms", "target_version", "cache_dir", "unsafe_fixes",
               "respect_gitignore")

    def __init__(self, select: frozenset[str] = DEFAULT_SELECT, unresolved_workers: str = "assume-workers",
                 extra_apis: tuple[SpawnAPI, ...] = (), extra_unpicklable: tuple[tuple[str, str], ...] = (),
                 exclude: tuple[str, ...] = DEFAULT_EXCLUDE, extend_exclude: tuple[str, ...] = (),
                 per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = (), root: Optional[str] = None,
                 target_platforms: tuple[str, ...] = TARGET_PLATFORMS, target_version: Optional[tuple[int, int]] = None,
                 cache_dir: Optional[str] = None, unsafe_fixes: bool = False, respect_gitignore: bool = True) -> None:
        self.select = select
        #: "assume-workers": a worker count that cannot be resolved may be > 0
        self.unresolved_workers = unresolved_workers
        self.extra_apis = extra_apis
        #: (qualified name, what it makes): calls whose results cannot be pickled, besides the built-in ones
        self.extra_unpicklable = extra_unpicklable
        self.exclude = exclude
        self.extend_exclude = extend_exclude
        self.per_file_ignores = per_file_ignores
        self.root = root  # where the config file was found; patterns are relative to it
        #: where the code runs: findings that cannot break on any of these are dropped
        self.target_platforms = target_platforms
        #: the oldest Python the code supports, e.g. (3, 11); None: Linux means Python >= 3.14 (forkserver)
        self.target_version = target_version
        #: the results cache's directory (relative to root); None: .winspawn_lint_cache there (see cache.py)
        self.cache_dir = cache_dir
        #: apply unsafe fixes too (``unsafe-fixes = true``, as in ruff; ``--unsafe-fixes``/``--no-unsafe-fixes``
        #: win)
        self.unsafe_fixes = unsafe_fixes
        #: a directory walk skips what git ignores (.gitignore files, .git/info/exclude, the global excludes file)
        self.respect_gitignore = respect_gitignore

    def __getstate__(self) -> dict[str, Any]:
        # Only the fields travel (to a parallel run's workers): what the cached properties derive from them is
        # rebuilt where it is used, so a worker never holds a copy that differs from what it would build itself.
        return {name: self.__dict__[name] for name in self._fields}

    @cached_property
    def registry(self) -> Registry:
        unpicklable = {**UNPICKLABLE_CALLS, **{name: Unpicklable(what, False) for name, what in self.extra_unpicklable}}
        return Registry.of((*self.extra_apis, *BUILTIN_APIS), unpicklable)

    @cached_property
    def platforms(self) -> frozenset[str]:
        """The platform ids (:data:`.spawn_apis.PLATFORMS`) of ``target-platforms`` and ``target-version``."""
        out = set()
        for name in self.target_platforms:
            if name == "windows":
                out.add(WINDOWS)
            elif name == "macos":
                out.add(MACOS)
            elif name == "linux":
                out.add(LINUX_314)
                if self.target_version is not None and self.target_version < (3, 14):
                    out.add(LINUX_313)  # it also runs where Linux still forks
        return frozenset(out)

    @property
    def assume_workers(self) -> bool:
        return self.unresolved_workers == "assume-workers"

    def enabled_for(self, path: Optional[str]) -> frozenset[str]:
        if not path or not self.per_file_ignores:
            return self.select
        relative = self._relative(path)
        ignored: set[str] = set()
        for pattern, codes in self.per_file_ignores:
            if _match(relative, pattern):
                ignored |= codes
        return self.select - ignored

    def is_excluded(self, path: str, below: Optional[str] = None) -> bool:
        """Whether *path* matches ``exclude``/``extend-exclude``.

        A pattern without ``/`` matches a file or directory name (``build``,
        ``*_pb2.py``, ``scripts/``); one with ``/`` matches the path relative to the
        configuration file's directory (the current directory without one).  Only
        the names below *below* (the directory being walked, whose own ancestors
        are not the project's business) count: a checkout under ``~/env/`` or
        ``/build/`` must not exclude itself.
        """
        relative = self._relative(path)
        scope = relative if below is None else self._relative(path, os.path.abspath(below))
        parts = [part for part in Path(scope).parts if part not in ("..", ".", "/")]
        return any(self._excluded_name(part) for part in parts) or self._excluded_path(relative)

    def is_excluded_below(self, path: str, name: str) -> bool:
        """:meth:`is_excluded` for an entry named *name* of a directory the walk already let through: only its
        own name is left to match, and the path patterns.  (Matching every part of every path again, and a
        ``realpath`` per file, cost 8.6 s against 7.0 s for a serial check of torch, datasets and pandas.)"""
        return self._excluded_name(name) or (bool(self._path_patterns) and self._excluded_path(self._relative(path)))

    def _excluded_name(self, name: str) -> bool:
        return self._name_pattern is not None and self._name_pattern.match(os.path.normcase(name)) is not None

    def _excluded_path(self, relative: str) -> bool:
        # anchored at the configuration's directory
        return any(_match(relative, pattern) for pattern in self._path_patterns)

    @cached_property
    def _name_pattern(self) -> Optional[re.Pattern]:
        """Every pattern without ``/`` as one regex; fnmatch's own rules, case-insensitive where paths are."""
        names = [p.rstrip("/") for p in (*self.exclude, *self.extend_exclude) if "/" not in p.rstrip("/")]
        if not names:
            return None
        return re.compile("|".join(f"(?:{fnmatch.translate(os.path.normcase(name))})" for name in names))

    @cached_property
    def _path_patterns(self) -> tuple[str, ...]:
        return tuple(p for p in (*self.exclude, *self.extend_exclude) if "/" in p.rstrip("/"))

    def _relative(self, path: str, base: Optional[str] = None) -> str:
        try:
            return os.path.relpath(os.path.abspath(path), base or self.root or os.getcwd()).replace(os.sep, "/")
        except ValueError:  # another drive on Windows
            return path.replace(os.sep, "/")


def _match(path: str, pattern: str) -> bool:
    pattern = pattern.rstrip("/")
    return fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(path, pattern + "/*") or \
        fnmatch.fnmatch(os.path.basename(path), pattern)


def resolve_selection(select: Optional[Iterable[str]], extend_select: Iterable[str] = (),
                      ignore: Iterable[str] = (), base: frozenset[str] = DEFAULT_SELECT) -> frozenset[str]:
    chosen = expand(list(select)) if select is not None else set(base)
    chosen |= expand(list(extend_select))
    chosen -= expand(list(ignore))
    return frozenset(chosen)


_KEYS = {"select", "ignore", "extend-select", "extend-ignore", "exclude", "extend-exclude", "per-file-ignores",
         "unresolved-workers", "spawn-api", "unpicklable", "target-platforms", "target-version", "cache-dir",
         "unsafe-fixes", "respect-gitignore"}


def configured(start: str, config: Optional[str] = None, isolated: bool = False,
               looked_at: Optional[list[Path]] = None) -> Settings:
    """The settings the configuration gives a run that begins at *start* (a file or a directory): those of
    *config* (a ``pyproject.toml``) when given, else of the nearest ``pyproject.toml`` with a
    ``[tool.winspawn-lint]`` table above *start* (:func:`find_config`); the defaults with *isolated* or when
    there is none.  *looked_at* collects the ``pyproject.toml`` paths examined, found or not.  Raises
    :class:`ConfigError` naming the file and key."""
    if isolated:
        return Settings()
    if config is None:
        found = find_config(start if os.path.exists(start) else ".", looked_at)
        config = str(found) if found else None
    else:
        config = os.path.abspath(config)
        if looked_at is not None:
            looked_at.append(Path(config))
    if config is None:
        return Settings()
    if not os.path.isfile(config):
        raise ConfigError(f"{config}: no such file")
    return settings_from_mapping(load_config(config), root=os.path.dirname(config))


def find_config(start: str, looked_at: Optional[list[Path]] = None) -> Optional[Path]:
    """The nearest ``pyproject.toml`` with a ``[tool.winspawn-lint]`` table, walking up from *start* (each
    candidate path, found or not, is added to *looked_at*)."""
    tomllib = _tomllib()
    here = Path(start).resolve()
    if not here.is_dir():
        here = here.parent
    for directory in (here, *here.parents):
        candidate = directory / "pyproject.toml"
        if looked_at is not None:
            looked_at.append(candidate)
        if candidate.is_file():
            try:
                with open(candidate, "rb") as handle:
                    data = tomllib.load(handle)
            except (OSError, tomllib.TOMLDecodeError) as error:
                raise ConfigError(f"{candidate}: cannot read: {error}") from None
            if "winspawn-lint" in data.get("tool", {}):
                return candidate
    return None


def _tomllib():
    # Imported when a configuration is read: `--isolated` runs (and the flake8 plugin) never need it.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    return tomllib


def load_config(path: Path) -> dict[str, Any]:
    tomllib = _tomllib()
    with open(path, "rb") as handle:
        try:
            data = tomllib.load(handle)
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(f"{path}: {error}") from None
    table = data.get("tool", {}).get("winspawn-lint", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.winspawn-lint] must be a table")
    return table


def settings_from_mapping(table: Mapping[str, Any], where: str = "[tool.winspawn-lint]",
                          root: Optional[str] = None, base: Optional[Settings] = None) -> Settings:
    """Settings from a configuration table; raises ConfigError naming the bad key."""
    base = base or Settings()
    unknown = set(table) - _KEYS
    if unknown:
        key = sorted(unknown)[0]
        close = difflib.get_close_matches(key, sorted(_KEYS), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ConfigError(f"{where}: unknown key {key!r}{hint} (known: {', '.join(sorted(_KEYS))})")

    def codes(key: str) -> list[str]:
        value = table.get(key, [])
        if isinstance(value, str):
            value = [v for v in value.replace(",", " ").split()]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}.{key}: expected a list of rule codes")
        try:
            expand(value)
        except ValueError as error:
            raise ConfigError(f"{where}.{key}: {error}") from None
        return value

    def patterns(key: str) -> tuple[str, ...]:
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}.{key}: expected a list of glob patterns")
        return tuple(value)

    select = codes("select") if "select" in table else None
    selection = resolve_selection(select, codes("extend-select"), [*codes("ignore"), *codes("extend-ignore")],
                                  base=base.select)
    policy = table.get("unresolved-workers", base.unresolved_workers)
    if policy not in UNRESOLVED_POLICIES:
        raise ConfigError(f"{where}.unresolved-workers: expected one of {', '.join(UNRESOLVED_POLICIES)}, "
                          f"got {policy!r}")
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{where}.per-file-ignores: expected a table of pattern = [codes]")
    per_file_ignores = []
    for pattern, value in per_file.items():
        if isinstance(value, str):
            value = value.replace(",", " ").split()
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}.per-file-ignores.{pattern}: expected a list of rule codes, got {value!r}")
        try:
            per_file_ignores.append((pattern, frozenset(expand(list(value)))))
        except (ValueError, TypeError) as error:
            raise ConfigError(f"{where}.per-file-ignores.{pattern}: {error}") from None
    cache_dir = table.get("cache-dir", base.cache_dir)
    if cache_dir is not None and (not isinstance(cache_dir, str) or not cache_dir.strip()):
        raise ConfigError(f"{where}.cache-dir: expected a directory path, got {cache_dir!r}")
    unsafe_fixes = table.get("unsafe-fixes", base.unsafe_fixes)
    if not isinstance(unsafe_fixes, bool):
        raise ConfigError(f"{where}.unsafe-fixes: expected true or false, got {unsafe_fixes!r}")
    respect_gitignore = table.get("respect-gitignore", base.respect_gitignore)
    if not isinstance(respect_gitignore, bool):
        raise ConfigError(f"{where}.respect-gitignore: expected true or false, got {respect_gitignore!r}")
    try:
        extra = from_config(table.get("spawn-api", []), f"{where}.spawn-api")
        unpicklable = unpicklable_from_config(table.get("unpicklable", []), f"{where}.unpicklable")
    except ValueError as error:
        raise ConfigError(str(error)) from None
    platforms = table.get("target-platforms", list(base.target_platforms))
    try:
        target_platforms = parse_platforms(platforms)
        target_version = parse_version(table["target-version"]) if "target-version" in table else base.target_version
    except ValueError as error:
        raise ConfigError(f"{where}.{error}") from None
    return base.replace(
        select=selection, unresolved_workers=policy, target_platforms=target_platforms,
        target_version=target_version, extra_apis=(*base.extra_apis, *extra),
        extra_unpicklable=(*base.extra_unpicklable, *unpicklable),
        exclude=patterns("exclude") if "exclude" in table else base.exclude,
        extend_exclude=(*base.extend_exclude, *patterns("extend-exclude")),
        per_file_ignores=(*base.per_file_ignores, *per_file_ignores), root=root or base.root, cache_dir=cache_dir,
        unsafe_fixes=unsafe_fixes,
        respect_gitignore=respect_gitignore,
    )


def parse_platforms(value: Any) -> tuple[str, ...]:
    """``target-platforms``: a list (or comma-separated string) of windows, macos, linux."""
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value) or not value or \
            not set(v.lower() for v in value) <= set(TARGET_PLATFORMS):
        raise ValueError(f"target-platforms: expected a list of {', '.join(TARGET_PLATFORMS)}, got {value!r}")
    return tuple(dict.fromkeys(v.lower() for v in value))


def parse_version(value: Any) -> tuple[int, int]:
    """``target-version``: ``py311`` (ruff's spelling) or ``3.11``."""
    match = re.fullmatch(r"(?:py3(\d+)|3\.(\d+))", str(value).strip()) if isinstance(value, str) else None
    if match is None:
        raise ValueError(f"target-version: expected e.g. 'py311' or '3.11', got {value!r}")
    return 3, int(match[1] or match[2])


def __getattr__(name: str) -> Any:
    # `settings.tomllib` stays available to importers, loaded on first use (see _tomllib).
    if name == "tomllib":
        return _tomllib()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
