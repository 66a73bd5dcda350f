"""Run one script as it would run on Windows or macOS: ``python -m winspawn_lint.spawnrun script.py``.

The script runs in a fresh interpreter whose default start method (and that of
every process it starts) is ``spawn`` or ``forkserver``; see
``winspawn_lint.runtime.emulation``.  Exit status is the script's own.  ``--mp-start-method`` (the pytest
plugin's spelling) and ``--start-method`` are the same option; ``forkserver`` is Linux's default from
Python 3.14, where the server imports the script once (see the pytest plugin's notes).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

from .runtime.emulation import METHODS, child_environment

_METHOD_FLAGS = ("--start-method", "--mp-start-method")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m winspawn_lint.spawnrun",
        usage="%(prog)s [--start-method METHOD] (script.py | -m module) [args ...]",
        description="Run a Python script with 'spawn' (or 'forkserver') as the default "
        "multiprocessing start method, for multiprocessing, torch.multiprocessing and multiprocess.",
    )
    parser.add_argument("--start-method", "--mp-start-method", dest="start_method", choices=METHODS, default="spawn",
                        help="spawn (Windows, macOS), forkserver (Linux from Python 3.14) or fork (default: spawn)")
    argv = list(sys.argv[1:] if argv is None else argv)
    # Everything from the script (or `-m module`) on belongs to the target, as with `python` itself.
    split = next((i for i, a in enumerate(argv) if a == "-m" or not a.startswith("-")), len(argv))
    if split > 0 and argv[split - 1] in _METHOD_FLAGS and split < len(argv) and argv[split] != "-m":
        split = next((i for i, a in enumerate(argv) if i > split and (a == "-m" or not a.startswith("-"))),
                     len(argv))
    ns = parser.parse_args(argv[:split])
    target = argv[split:]
    if not target or (target[0] == "-m" and len(target) < 2):
        parser.error("give a script, or -m MODULE")
    command = [sys.executable, *target]
    env = child_environment(ns.start_method)
    if os.name == "posix":
        # Become the script's process, so signals and timeouts reach it (no orphan when a wrapper is killed).
        os.execve(sys.executable, command, env)
    try:
        return subprocess.call(command, env=env)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
