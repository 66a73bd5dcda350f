"""The maximum line length a project configures for its other tools (flake8, pycodestyle, ruff, black): the
limit that code the fixer writes keeps to.  Configuration is read as data, never run."""

from __future__ import annotations

import os
import re
from typing import Optional

DEFAULT_MAX_LINE_LENGTH = 79  # pycodestyle's

_INI_FILES = ("setup.cfg", "tox.ini", ".flake8", ".pycodestyle")
_INI_SECTIONS = ("flake8", "pycodestyle", "pep8")
_TOML_KEYS = re.compile(r"^\[([^\]]+)\]\s*$|^(line-length|line_length|max-line-length)\s*=\s*(\d+)", re.M)
_TOML_TABLES = frozenset({"tool.ruff", "tool.black", "tool.flake8", "tool.pycodestyle"})
_ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


def configured_line_length(directory: str) -> tuple[int, list[str]]:
    """The limit configured for files in *directory*, looking there and up to the project root (pycodestyle's
    79 when none is set), and every file whose presence or content the answer depends on."""
    looked_at: list[str] = []
    for _ in range(directory.count(os.sep) + 1):  # one step per level up to the filesystem root
        found = _in_directory(directory, looked_at)
        if found:
            return found, looked_at
        markers = [os.path.join(directory, marker) for marker in _ROOT_MARKERS]
        looked_at.extend(markers)
        if any(os.path.exists(marker) for marker in markers):
            break
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return DEFAULT_MAX_LINE_LENGTH, looked_at


def _in_directory(directory: str, looked_at: list[str]) -> Optional[int]:
    for name in _INI_FILES:
        path = os.path.join(directory, name)
        looked_at.append(path)
        if os.path.isfile(path):
            import configparser  # (only where a file may configure it: its import is a few ms of a one-file run)

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
    looked_at.append(path)
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
