"""What a fact recorded of a file, and whether it still holds: its size and mtime (a :data:`Stamp`), or its size
and content digest when its mtime was too recent to trust (:func:`content_stamp`), or only that it was there
(:data:`PRESENT_FILE`, :data:`PRESENT`), or that it was not (``None``).  The results cache keeps these with each
entry, and the project reader with each fact it keeps (:mod:`..analysis.project`); a one-file run with
``--no-cache`` needs only this, not the cache."""

from __future__ import annotations

import os
import stat
import time
from typing import Any, Optional

try:  # the built-in BLAKE2: `hashlib` loads OpenSSL first, a few ms of a one-file run
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - another Python implementation
    from hashlib import blake2b

#: a file modified this recently may be modified again within the same mtime tick (coarse on some systems)
RACY_NS = 2_000_000_000

#: (size, mtime_ns); mtime None: not to be trusted; a str: the content's digest (:func:`content_stamp`)
Stamp = tuple[int, "Optional[int | str]"]
#: the stamp of a path looked for and found to be a file, whose content the answer did not read
PRESENT_FILE: Stamp = (-1, 0)
#: the stamp of a path looked for and found to be there (a file, a directory, a link)
PRESENT: Stamp = (-2, 0)
PRESENCE = (PRESENT_FILE, PRESENT)


def content_hash(data: bytes) -> str:
    """A digest of *data*: what a fact recorded of a file's content, or of a set of files, is compared by."""
    return blake2b(data, digest_size=16).hexdigest()


def too_recent(st: os.stat_result) -> bool:
    """Whether a file's (or folder's) mtime is too recent to prove it unchanged while it stays the same."""
    return time.time_ns() - st.st_mtime_ns < RACY_NS


def folder_mtime(folder: str) -> Optional[int]:
    """A folder's mtime, None if it is not a folder or changed too recently to be trusted not to change again
    within the same tick (while a folder keeps its mtime, no entry was added to it, removed or renamed)."""
    try:
        st = os.stat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or too_recent(st):
        return None
    return st.st_mtime_ns


def stat_stamp(path: str) -> Optional[Stamp]:
    """(size, mtime_ns) of *path*, the mtime ``None`` when too recent to trust; ``None`` if absent."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    mtime: Optional[int] = st.st_mtime_ns
    if too_recent(st):
        mtime = None
    return (st.st_size, mtime)


def content_stamp(path: str) -> Optional[Stamp]:
    """(size, digest of the content) of the file at *path*, None if it cannot be read: what a run records of a file
    whose mtime is too recent to trust (just edited), so that the next run can still find it unchanged (it hashes
    the file again) rather than check again every file that read it."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    return (len(data), content_hash(data))


def holds(path: str, recorded: Optional[Stamp], trust_recent: bool = False) -> bool:
    """Whether what was recorded of *path* still holds: its presence (:data:`PRESENT_FILE`, :data:`PRESENT`), or
    its absence (``None``), or its size and mtime (*trust_recent*: an mtime too recent to trust still proves
    the file unchanged, as within one run)."""
    return still(recorded, observe(path, recorded), trust_recent)


def observe(path: str, recorded: Optional[Stamp]) -> Any:
    """What the file system says now of *path*, as much as *recorded* needs: whether it is a file, whether it is
    there, or its stamp."""
    if recorded == PRESENT_FILE:
        return os.path.isfile(path)
    if recorded == PRESENT:
        return os.path.lexists(path)
    if recorded is not None and isinstance(recorded[1], str):
        return content_stamp(path)
    return stat_stamp(path)


def still(recorded: Optional[Stamp], now: Any, trust_recent: bool = False) -> bool:
    """Whether *now* (:func:`observe`) proves what was *recorded* still true."""
    if recorded in PRESENCE:
        return now
    return now == recorded if trust_recent else same(recorded, now)


def same(recorded: Any, now: Optional[Stamp]) -> bool:
    """Whether a stamp recorded earlier proves the file unchanged (a distrusted mtime never does)."""
    if now is None:
        return recorded is None
    return recorded is not None and recorded[1] is not None and now[1] is not None \
        and recorded[0] == now[0] and recorded[1] == now[1]
