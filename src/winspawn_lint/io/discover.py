"""Finding the files to check: recursion, default excludes, what git ignores, symlink policy.

Inside a git work tree the walk skips what git ignores (``.gitignore`` at every level, ``.git/info/exclude``,
the global excludes file; see :mod:`.gitignore`), unless ``respect-gitignore`` is off; a directory or file named
on the command line is checked even when git ignores it (the walk tests the entries below it by their own
names).  Directory symlinks are not followed (a link loop cannot trap the walk); file
symlinks are (a file reached twice is checked once, under its real name); a
file named on the command line is checked whatever its extension, as flake8
and ruff do, so pre-commit can pass extensionless scripts.
"""

from __future__ import annotations

import os
import stat
from typing import Iterator, Optional

from ..settings import Settings
from . import gitignore

PYTHON_SUFFIXES = (".py", ".pyi", ".ipynb")  # notebooks: see notebook.py


def discover(paths: list[str], settings: Settings, watched: Optional[list[str]] = None) -> Iterator[tuple[str, bool]]:
    """(path, named explicitly) for every file to check, in a stable order; directories are walked.  *watched*:
    a list to append every walked directory and the ``.gitignore`` files read to (what ``--watch`` polls)."""
    seen: set[str] = set()
    for path in paths:
        if path == "-":
            yield path, True
            continue
        if os.path.isdir(path):
            found: list[tuple[str, str, bool]] = []
            real_top = os.path.realpath(path)
            git = _GitWalk(path) if settings.respect_gitignore else None
            for root, dirs, files in os.walk(path, followlinks=False):
                if watched is not None:
                    watched.append(root)
                    if git is not None and ".gitignore" in files:
                        watched.append(os.path.join(root, ".gitignore"))
                work_tree = ".git" in dirs or ".git" in files  # a submodule's or a nested clone's root
                # the walk never enters an excluded directory, so only each entry's own name is left to match
                dirs[:] = sorted(d for d in dirs if not settings.is_excluded_below(os.path.join(root, d), d))
                ignored = git.ignored_in(root, dirs, files, work_tree) if git is not None else _NOTHING
                if ignored:
                    dirs[:] = [d for d in dirs if d not in ignored]
                for name in sorted(files):
                    if not name.endswith(PYTHON_SUFFIXES) or name in ignored:
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


_NOTHING: frozenset[str] = frozenset()


class _GitWalk:
    """What git ignores among the entries of each directory a walk visits (a work tree found above the walked
    directory, or one whose root the walk enters: a submodule or a nested clone has rules of its own)."""

    def __init__(self, top: str) -> None:
        self.top = top
        #: directory being walked -> (its work tree, its path relative to the work tree's root)
        self.places: dict[str, tuple[gitignore.Repository, str]] = {}
        repository = gitignore.find_repository(top)
        if repository is not None:
            self.places[top] = (repository, _relative(os.path.abspath(top), repository.root))

    def ignored_in(self, root: str, dirs: list[str], files: list[str], work_tree: bool) -> frozenset[str]:
        """The names among *dirs* and the Python files among *files* that git ignores in *root* (*work_tree*: it
        holds a ``.git``)."""
        place = self.places.pop(root, None)
        git_dir = gitignore.git_dir_of(root) if work_tree and root != self.top else None
        if git_dir is not None:
            place = (gitignore.Repository(os.path.abspath(root), git_dir), ".")
        if place is None:
            return _NOTHING
        repository, here = place
        directory = "" if here == "." else here
        ignored_here = repository.matcher(directory, has_gitignore=".gitignore" in files)
        ignored = {d for d in dirs if ignored_here(d, True)}
        ignored.update(name for name in files if name.endswith(PYTHON_SUFFIXES) and ignored_here(name, False))
        for name in dirs:
            if name not in ignored:
                self.places[os.path.join(root, name)] = (repository, f"{directory}/{name}" if directory else name)
        return frozenset(ignored)


def _relative(path: str, root: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")


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
    # (the walk joins each name to *top*: what follows it is the path below it; relpath took most of a walk)
    below = os.path.join(top, "")
    return os.path.join(real_top, full[len(below):] if full.startswith(below) else os.path.relpath(full, top)), False


def _display(path: str) -> str:
    return path[2:] if path.startswith("./") else path
