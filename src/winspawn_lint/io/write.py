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
import signal
import stat
import tempfile
import threading

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
    with _signals_deferred():
        _replace(path, data, info, directory)


_DEFERRED = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class _signals_deferred:
    """Hold Ctrl-C and SIGTERM (a parallel run's parent terminating its workers) until the file is replaced.

    A signal arriving between creating the temporary file and ``os.replace`` would otherwise leave the
    temporary file behind; deferred, it takes effect right after, with the file complete.  In the main
    thread the handlers are swapped for one that records the signal, which is re-raised on exit (a
    signal mask alone is not enough: another thread may receive the signal and Python then runs the
    handler in the main thread anyway); in other threads SIGINT/SIGTERM are masked where POSIX allows.
    """

    def __enter__(self) -> None:
        self.pending: list[int] = []
        self.saved: dict[int, object] = {}
        self.mask = None
        if threading.current_thread() is threading.main_thread():
            for signum in _DEFERRED:
                handler = signal.getsignal(signum)
                if handler is not None:  # None: installed outside Python, cannot be restored
                    self.saved[signum] = signal.signal(signum, self._record)
        elif hasattr(signal, "pthread_sigmask"):
            self.mask = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED)

    def _record(self, signum: int, frame) -> None:
        self.pending.append(signum)

    def __exit__(self, *exc_info) -> None:
        for signum, handler in self.saved.items():
            signal.signal(signum, handler)
        if self.mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self.mask)
        for signum in dict.fromkeys(self.pending):
            signal.raise_signal(signum)  # now with its own handler: KeyboardInterrupt, or the process ends


def _replace(path: str, data: bytes, info: os.stat_result, directory: str) -> None:
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


def create_new(path: str, text: str) -> None:
    """Create *path* holding *text* (UTF-8, line ends as given); never replaces a file (one that exists, or
    that appears meanwhile, is an error)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as error:
        raise WriteError(f"cannot create {path}: {error.strerror or error}") from None
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)
