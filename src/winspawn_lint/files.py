"""Finding the files to check: recursion, default excludes, symlink policy.

Directory symlinks are not followed (a link loop cannot trap the walk); file
symlinks are (a file reached twice is checked once, under its real name); a
file named on the command line is checked whatever its extension, as flake8
and ruff do, so pre-commit can pass extensionless scripts.
"""

from __future__ import annotations

import os
import stat
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
            found = []
            for root, dirs, files in os.walk(path, followlinks=False):
                dirs[:] = sorted(d for d in dirs if not settings.is_excluded(os.path.join(root, d), below=path))
                for name in sorted(files):
                    if not name.endswith(PYTHON_SUFFIXES):
                        continue
                    full = os.path.join(root, name)
                    if settings.is_excluded(full, below=path) or _special(full):
                        continue
                    found.append(full)
            # A file reached both directly and through a symlink is checked once, under its own name
            # (so --fix, which never writes through a symlink, can rewrite it).
            keep = set()
            for full in sorted(found, key=os.path.islink):
                key = os.path.realpath(full)
                if key not in seen:
                    seen.add(key)
                    keep.add(full)
            for full in found:
                if full in keep:
                    yield _display(full), False
        else:
            key = os.path.realpath(path)
            if key not in seen:
                seen.add(key)
                yield path, True


def _special(path: str) -> bool:
    """A FIFO, socket or device found by the walk: opening a FIFO would block forever, so it is skipped.

    (Named on the command line it is read: ``winspawn-lint <(cat x.py)`` passes a pipe.)  A dangling
    symlink is not skipped here: reading it reports the error.
    """
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _display(path: str) -> str:
    return path[2:] if path.startswith("./") else path
