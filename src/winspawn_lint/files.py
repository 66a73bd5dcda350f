"""Finding the files to check: recursion, default excludes, symlink policy.

Directory symlinks are not followed (a link loop cannot trap the walk); a
file named on the command line is checked whatever its extension, as flake8
and ruff do, so pre-commit can pass extensionless scripts.
"""

from __future__ import annotations

import os
from typing import Iterator

from .settings import Settings

PYTHON_SUFFIXES = (".py", ".pyi")


def discover(paths: list[str], settings: Settings) -> Iterator[tuple[str, bool]]:
    """(path, named explicitly) for every file to check, in a stable order; directories are walked."""
    seen: set[str] = set()
    for path in paths:
        if path == "-":
            yield path, True
            continue
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path, followlinks=False):
                dirs[:] = sorted(d for d in dirs if not settings.is_excluded(os.path.join(root, d), below=path))
                for name in sorted(files):
                    if not name.endswith(PYTHON_SUFFIXES):
                        continue
                    full = os.path.join(root, name)
                    if settings.is_excluded(full, below=path):
                        continue
                    key = os.path.realpath(full)
                    if key not in seen:
                        seen.add(key)
                        yield _display(full), False
        else:
            key = os.path.realpath(path)
            if key not in seen:
                seen.add(key)
                yield path, True


def _display(path: str) -> str:
    return path[2:] if path.startswith("./") else path
