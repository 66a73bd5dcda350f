"""A fix run over a repository against its check (issue 10: at most 2 ×), cold, side by side.

    python benchmarks/fix_ratio.py [--rounds N] [--arm NAME=SRC ...] [--bytecode] REPO [REPO ...]

For each repository, each round runs ``winspawn-lint --isolated -j 1 --no-cache REPO`` and then the same with
``--diff --unsafe-fixes`` (which writes nothing), for every arm in turn (an arm is a ``src`` directory put on
``PYTHONPATH``: this checkout's by default; add ``--arm before=/path/to/worktree/src`` to compare with another
commit), so that the arms share the host's noise.  It prints, per repository and arm, the range of wall seconds
of each run, the median of the rounds' fix/check ratios (wall, and CPU seconds of the child), and min(fix) /
min(check).

``--bytecode`` lets the children write and use ``.pyc`` files even when ``PYTHONDONTWRITEBYTECODE`` is set (an
installed package has them; without, every run compiles each module it imports, and a fix run imports more).
Nothing is imported or run from the repositories.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "src")


def run(src: str, args: list[str], bytecode: bool) -> tuple[float, float]:
    """Wall and CPU seconds of one winspawn-lint run."""
    env = dict(os.environ, PYTHONPATH=src)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "winspawn_lint", "--isolated", "-j", "1", "--no-cache", *args],
                   env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repos", nargs="+")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--arm", action="append", default=[], metavar="NAME=SRC",
                        help="a src directory to measure (default: this checkout's)")
    parser.add_argument("--bytecode", action="store_true", help="let the runs write and use .pyc files")
    args = parser.parse_args(argv)
    arms = dict(arm.split("=", 1) for arm in args.arm) or {"current": SRC}
    if args.bytecode:
        for src in arms.values():  # the first run of each arm would compile what the others read
            run(src, ["--version"], True)
    print("| repo | arm | check s | fix s | fix/check (median) | CPU fix/check (median) | min/min |")
    print("|---|---|---|---|---|---|---|")
    for repo in args.repos:
        times: dict[str, list[tuple[tuple[float, float], tuple[float, float]]]] = {name: [] for name in arms}
        for _ in range(args.rounds):
            for name, src in arms.items():
                times[name].append((run(src, [repo], args.bytecode),
                                    run(src, ["--diff", "--unsafe-fixes", repo], args.bytecode)))
        for name, pairs in times.items():
            checks = [check[0] for check, _ in pairs]
            fixes = [fix[0] for _, fix in pairs]
            wall = statistics.median(fix[0] / check[0] for check, fix in pairs)
            cpu = statistics.median(fix[1] / check[1] for check, fix in pairs)
            print(f"| {os.path.basename(os.path.normpath(repo))} | {name} | {min(checks):.2f}–{max(checks):.2f} | "
                  f"{min(fixes):.2f}–{max(fixes):.2f} | {wall:.2f} | {cpu:.2f} | {min(fixes) / min(checks):.2f} |",
                  flush=True)


if __name__ == "__main__":
    main()
