"""Run one script as it would run on Windows or macOS: ``python -m winspawn_lint.spawnrun script.py``.

The script runs in a fresh interpreter whose default start method (and that of
every process it starts) is ``spawn`` or ``forkserver``; see
``winspawn_lint.emulation``.  Exit status is the script's own.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

from .emulation import METHODS, child_environment


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m winspawn_lint.spawnrun",
        description="Run a Python script with 'spawn' (or 'forkserver') as the default "
        "multiprocessing start method, for multiprocessing, torch.multiprocessing and multiprocess.",
    )
    parser.add_argument("--start-method", choices=METHODS, default="spawn")
    parser.add_argument("script", help="the script to run (or '-m module')")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the script")
    ns = parser.parse_args(argv)
    command = [sys.executable, ns.script, *ns.args]
    if ns.script == "-m":
        command = [sys.executable, "-m", *ns.args]
    try:
        return subprocess.call(command, env=child_environment(ns.start_method))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
