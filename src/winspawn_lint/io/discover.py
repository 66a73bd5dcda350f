"""Finding the files to check: recursion, default excludes, symlink policy.

Directory symlinks are not followed (a link loop cannot trap the walk); file
symlinks are (a file reached twice is checked once, under its real name); a
file named on the command line is checked whatever its extension, as flake8
and ruff do, so pre-commit can pass extensionless scripts.
"""

from __future__ import annotations

import os
import stat
from typing import Iterator, Optional

from ..settings import Settings

PYTHON_SUFFIXES = (".py", ".pyi", ".ipynb")  # notebooks: see notebook.py


def discover(paths: list[str], settings: Settings) -> Iterator[tuple[str, bool]]:
    """(path, named explicitly) for every file to check, in a stable order; directories are walked."""
    seen: set[str] = set()
    for path in paths:
        if path == "-":
            yield path, True
            continue
        if os.path.isdir(path):
            found: list[tuple[str, str, bool]] = []
            real_top = os.path.realpath(path)
            for root, dirs, files in os.walk(path, followlinks=False):
                # the walk never enters an excluded directory, so only each entry's own name is left to match
                dirs[:] = sorted(d for d in dirs if not settings.is_excluded_below(os.path.join(root, d), d))
                for name in sorted(files):
                    if not name.endswith(PYTHON_SUFFIXES):
                        continue
                    full = os.path.join(root, name)
                    if settings.is_excluded_below(full, name):
                        continue
                    entry = _walked_file(full, real_top, path)
                    if entry is not None:
                        found.append((full, *entry))
            # A file reached both directly and through a symlink is checked once, under its own name
            # (so --fix, which never writes through a symlink, can rewrite it).
            keep = set()
            for full, real, _ in sorted(found, key=lambda entry: entry[2]):
                if real not in seen:
                    seen.add(real)
                    keep.add(full)
            for full, _, _ in found:
                if full in keep:
                    yield _display(full), False
        else:
            key = os.path.realpath(path)
            if key not in seen:
                seen.add(key)
                yield path, True


def _walked_file(full: str, real_top: str, top: str) -> Optional[tuple[str, bool]]:
    """(real path, is a symlink) of a file the walk found, or None for a FIFO, socket or device: opening
    a FIFO would block forever, so it is skipped.

    (Named on the command line it is read: ``winspawn-lint <(cat x.py)`` passes a pipe.)  A dangling
    symlink is kept: reading it reports the error.  The walk follows no directory symlink, so the real
    path of a file that is not itself a symlink is the walked directory's real path joined with the rest:
    one ``lstat`` per file instead of ``realpath``'s one per path component.
    """
    try:
        info = os.lstat(full)
    except OSError:
        return os.path.realpath(full), False
    if stat.S_ISLNK(info.st_mode):
        try:
            if not stat.S_ISREG(os.stat(full).st_mode):
                return None
        except OSError:
            pass
        return os.path.realpath(full), True
    if not stat.S_ISREG(info.st_mode):
        return None
    return os.path.join(real_top, os.path.relpath(full, top)), False


def _display(path: str) -> str:
    return path[2:] if path.startswith("./") else path
