"""Emulate another platform's default multiprocessing start method on Linux.

Windows (always), macOS (Python >= 3.8) and Linux (Python >= 3.14, forkserver)
do not fork workers: a fresh interpreter re-imports the main module and gets
its work by pickling.  To reproduce their failures on a Linux machine we make
``spawn`` (or ``forkserver``) the *default* context without marking it as set,
exactly the state a Windows interpreter starts in: a script's own
``set_start_method()`` then behaves as it would there (it succeeds once, and a
child that re-runs it at import time fails with "context has already been
set").

The switch must reach every process, including the children the stdlib starts
with ``sys.executable``; so it is carried by the environment variable
``WINSPAWN_START_METHOD`` and applied by the ``sitecustomize`` module in
``_emulation/``, which :func:`child_environment` puts on ``PYTHONPATH``.
Emulated ``forkserver`` is this interpreter's forkserver: from Python 3.14 (and 3.13.8) its server imports
the main module once and workers inherit it; earlier, the preload of ``__main__`` never took effect
(CPython gh-126631) and each worker re-imports it, as under spawn.

``multiprocess`` (the dill-based fork of multiprocessing that ``datasets``
uses) has its own context module; it is patched when it is first imported, so
processes that never use it pay nothing.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from dataclasses import dataclass
from typing import Mapping, Sequence

ENV_VAR = "WINSPAWN_START_METHOD"
METHODS = ("spawn", "forkserver", "fork")
SITE_DIR = Path(__file__).resolve().parent / "_emulation"


def child_environment(method: str, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """Environment for a subprocess (and all its children) running under *method*."""
    if method not in METHODS:
        raise ValueError(f"unknown start method {method!r}; expected one of {', '.join(METHODS)}")
    env = dict(os.environ if base is None else base)
    env[ENV_VAR] = method
    parts = [str(SITE_DIR)]
    parts += [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != str(SITE_DIR)]
    env["PYTHONPATH"] = os.pathsep.join(parts)
    return env


def _site_module():
    """The ``_emulation/sitecustomize.py`` file, loaded under a private name (not run as sitecustomize)."""
    name = "winspawn_lint._emulation_site"
    module = sys.modules.get(name)
    if module is None:
        import importlib.util

        spec = importlib.util.spec_from_file_location(name, SITE_DIR / "sitecustomize.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return module


def install(method: str) -> None:
    """Emulate *method* in this interpreter: the default for ``multiprocessing`` (and so
    ``torch.multiprocessing``) now, and for ``multiprocess`` now or when it is first imported.

    Child processes are reached only through the environment (:func:`child_environment`).
    """
    if method not in METHODS:
        raise ValueError(f"unknown start method {method!r}; expected one of {', '.join(METHODS)}")
    _site_module().install(method)


def uninstall() -> None:
    """Undo :func:`install` in this interpreter."""
    _site_module().uninstall()


@dataclass
class RunResult:
    """Outcome of :func:`run_script`."""

    command: list[str]
    method: str
    returncode: int | None  # None when killed after the timeout
    stdout: str
    stderr: str
    timed_out: bool
    duration: float

    @staticmethod
    def _tail(text: str, lines: int) -> str:
        kept = text.splitlines()[-lines:]
        return "\n".join(kept) if kept else "<empty>"

    def describe(self, lines: int = 25) -> str:
        """A summary with the tail of stdout and stderr, for failure messages."""
        status = f"timed out after {self.duration:.1f}s" if self.timed_out else f"exit {self.returncode}"
        return (
            f"[{self.method}] {' '.join(self.command)}: {status} ({self.duration:.1f}s)\n"
            f"--- stdout (last {lines} lines) ---\n{self._tail(self.stdout, lines)}\n"
            f"--- stderr (last {lines} lines) ---\n{self._tail(self.stderr, lines)}"
        )


def run_script(
    script: str | os.PathLike[str],
    method: str = "spawn",
    *,
    args: Sequence[str] = (),
    timeout: float = 90.0,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    unbuffered: bool = True,
) -> RunResult:
    """Run *script* in a fresh interpreter whose default start method (and its children's) is *method*.

    The script runs in its own session (process group).  When it exits, or is
    killed after *timeout* seconds, every process left in that group (orphaned
    workers) is killed too.  Output goes to anonymous temporary files, not pipes,
    so a lingering worker holding them open cannot block the wait.
    ``unbuffered`` sets PYTHONUNBUFFERED so that output of workers killed by
    their pool is not lost in a buffer.
    """
    import signal
    import subprocess
    import tempfile
    import time

    child_env = child_environment(method, env)
    if unbuffered:
        child_env["PYTHONUNBUFFERED"] = "1"
    command = [sys.executable, os.fspath(script), *args]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(
            command, cwd=cwd, env=child_env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
            start_new_session=True,
        )
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            if hasattr(os, "killpg"):
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            elif proc.poll() is None:
                proc.kill()
            proc.wait()
        duration = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    return RunResult(
        command=command, method=method, returncode=None if timed_out else proc.returncode,
        stdout=stdout, stderr=stderr, timed_out=timed_out, duration=duration,
    )
