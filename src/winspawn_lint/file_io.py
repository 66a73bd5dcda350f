"""Writing a fixed file without ever losing data.

The new text is encoded as the file was (its encoding and BOM; line endings
are already the file's own, the fixer keeps them), written to a temporary
file in the same directory with the original's permission bits, flushed,
and moved over the original with ``os.replace`` (atomic on POSIX and
Windows).  A file that changed on disk since it was read, or that is not
writable, is left alone and reported.
"""

from __future__ import annotations

import os
import stat
import tempfile

from .source import Source


class WriteError(Exception):
    """The file was not rewritten; ``str()`` says why, in one line."""


def encode(text: str, src: Source) -> bytes:
    data = text.encode(src.encoding)
    return (b"\xef\xbb\xbf" + data) if src.bom else data


def write_atomic(path: str, text: str, src: Source) -> None:
    data = encode(text, src)
    if os.path.islink(path):
        raise WriteError("is a symbolic link; fix the file it points to instead")
    try:
        info = os.stat(path)
    except OSError as error:
        raise WriteError(error.strerror or str(error)) from None
    if not os.access(path, os.W_OK) or not (info.st_mode & stat.S_IWUSR):
        raise WriteError("file is read-only")
    if src.original is not None:
        try:
            with open(path, "rb") as handle:
                current = handle.read()
        except OSError as error:
            raise WriteError(error.strerror or str(error)) from None
        if current != src.original:
            raise WriteError("file changed on disk while it was being fixed")
    directory = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(prefix=".winspawn-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, stat.S_IMODE(info.st_mode))
        try:
            os.chown(temp, info.st_uid, info.st_gid)
        except (AttributeError, PermissionError, OSError):
            pass  # keeping ownership needs privileges; permission bits are kept regardless
        os.replace(temp, path)
    except BaseException as error:
        try:
            os.unlink(temp)
        except OSError:
            pass
        if isinstance(error, OSError):
            raise WriteError(error.strerror or str(error)) from None
        raise
