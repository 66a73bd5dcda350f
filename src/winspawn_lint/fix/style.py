"""The layout rules fixed code follows, so that pycodestyle finds nothing new in it: the project's maximum
line length, and the blank lines around top-level definitions (E302, E305)."""

from __future__ import annotations

import configparser
import functools
import os
import re
from typing import Optional

DEFAULT_MAX_LINE_LENGTH = 79  # pycodestyle's

_INI_FILES = ("setup.cfg", "tox.ini", ".flake8", ".pycodestyle")
_INI_SECTIONS = ("flake8", "pycodestyle", "pep8")
_TOML_KEYS = re.compile(r"^\[([^\]]+)\]\s*$|^(line-length|line_length|max-line-length)\s*=\s*(\d+)", re.M)
_TOML_TABLES = frozenset({"tool.ruff", "tool.black", "tool.flake8", "tool.pycodestyle"})
_ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


def max_line_length(path: Optional[str]) -> int:
    """The project's configured maximum line length for ``path`` (flake8/pycodestyle ini files, ruff, black),
    looking in the file's directory and up to the project root; pycodestyle's 79 when none is set."""
    if not path or path == "-":
        return DEFAULT_MAX_LINE_LENGTH
    return _configured(os.path.dirname(os.path.abspath(path)))


@functools.lru_cache(maxsize=256)
def _configured(directory: str) -> int:
    for _ in range(directory.count(os.sep) + 1):  # one step per level up to the filesystem root
        found = _in_directory(directory)
        if found:
            return found
        if any(os.path.exists(os.path.join(directory, marker)) for marker in _ROOT_MARKERS):
            break
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return DEFAULT_MAX_LINE_LENGTH


def _in_directory(directory: str) -> Optional[int]:
    for name in _INI_FILES:
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            parser = configparser.ConfigParser(interpolation=None)
            try:
                parser.read(path, encoding="utf-8")
            except (configparser.Error, UnicodeDecodeError):
                continue
            for section in _INI_SECTIONS:
                for key in ("max-line-length", "max_line_length"):
                    value = parser.get(section, key, fallback="").strip()
                    if value.isdigit():
                        return int(value)
    path = os.path.join(directory, "pyproject.toml")
    if os.path.isfile(path):
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError):
            return None
        table = None
        for match in _TOML_KEYS.finditer(text):
            if match.group(1):
                table = match.group(1).strip() if match.group(1).strip() in _TOML_TABLES else None
            elif table is not None and match.group(3):
                return int(match.group(3))
    return None


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
