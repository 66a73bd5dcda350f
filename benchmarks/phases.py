"""Where one winspawn-lint run spends its CPU, by phase: a sampling profiler inside the run's own process.

    python benchmarks/phases.py -- WINSPAWN-LINT ARGUMENTS

Runs ``winspawn_lint.cli.main`` in this process (``-j 1`` runs only: a pool's workers are other processes) with a
thread that samples the main thread's stack every ~0.5 ms, and prints one JSON object: the CPU seconds of the
interpreter's start (up to this script's first line), of importing the command, and of the run itself, with the
run's share per phase.  ``benchmarks/run.py`` uses it to name, with a profile, what stands in the way of each
speed target it misses.  Sampling shares are of wall time in the main thread; a serial check does no I/O waits
worth counting, so they are shares of its CPU.

A sample is given to the innermost frame that names a phase (:data:`PHASES`, by file, and ``ast.parse``), so
parsing is counted as parsing whoever asks for it, and a stdlib helper (``ast.walk``, ``posixpath``) is counted
with the winspawn-lint code that called it.  One run per launch: a second run in the same process would find
the modules the first imported, and the caches it filled, already there.
"""

from __future__ import annotations

import time

STARTED_CPU = time.process_time()  # (first: the CPU the interpreter's own start took)

import argparse  # noqa: E402
import contextlib  # noqa: E402
import json  # noqa: E402
import multiprocessing  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
from collections import Counter  # noqa: E402

#: (a path suffix of the package, the phase it is counted in), first match wins; a frame of no listed file
#: (the standard library) is passed over for its caller.
PHASES = (
    ("io/compact_tree.py", "read and parse"),
    ("io/source.py", "read and parse"),
    ("io/notebook.py", "read and parse"),
    ("analysis/index.py", "module index"),
    ("analysis/taint.py", "taint analysis"),
    ("analysis/project.py", "project model (import search, importers)"),
    ("analysis/importers.py", "project model (import search, importers)"),
    ("analysis/imports.py", "project model (import search, importers)"),
    ("analysis/prefilter.py", "prefilter"),
    ("analysis/", "checks"),
    ("io/cache.py", "results cache"),
    ("io/stamps.py", "records of what each check read"),
    ("records.py", "records of what each check read"),
    ("io/discover.py", "file discovery"),
    ("io/gitignore.py", "file discovery"),
    ("fix/", "fixes"),
    ("report/", "output"),
)
OTHER = "other winspawn-lint code"
IMPORTS = "imports during the run"
INTERVAL = 0.0005


def phase_of(frame) -> str:
    """The phase of a sampled stack whose innermost frame is *frame*."""
    package = os.sep + "winspawn_lint" + os.sep
    while frame is not None:
        code = frame.f_code
        name = code.co_filename
        if code.co_name == "parse" and name.endswith(os.sep + "ast.py"):
            return "read and parse"
        if name.startswith("<frozen importlib"):
            return IMPORTS
        at = name.rfind(package)
        if at >= 0:
            inside = name[at + len(package):].replace(os.sep, "/")
            for suffix, phase in PHASES:
                if inside.startswith(suffix):
                    return phase
            return OTHER
        frame = frame.f_back
    return OTHER


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("argv", nargs=argparse.REMAINDER, help="winspawn-lint's arguments, after --")
    ns = parser.parse_args()
    argv = ns.argv[1:] if ns.argv[:1] == ["--"] else ns.argv
    before_import = time.process_time()
    from winspawn_lint import cli

    imported = time.process_time()
    target = threading.main_thread().ident
    counts: Counter[str] = Counter()
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(INTERVAL):
            frame = sys._current_frames().get(target)
            if frame is not None:
                counts[phase_of(frame)] += 1

    sys.setswitchinterval(INTERVAL / 2)  # (else the sampler waits for the main thread's 5 ms time slices)
    sampler = threading.Thread(target=sample, daemon=True)
    with open(os.devnull, "w") as sink:
        sampler.start()
        start = time.thread_time()  # (the main thread's: not the sampler's)
        with contextlib.redirect_stdout(sink):
            status = cli.main(argv)
        run_cpu = time.thread_time() - start
        stop.set()
        sampler.join()
    total = sum(counts.values()) or 1
    print(json.dumps({
        "interpreter_cpu": STARTED_CPU,
        "import_cpu": imported - before_import,
        "run_cpu": run_cpu,
        "samples": sum(counts.values()),
        "status": status,
        "shares": {phase: n / total for phase, n in counts.most_common()},
    }))
    return 0


if __name__ == "__main__":
    multiprocessing.freeze_support()  # (cli.main may start a pool: not with -j 1, which is what this is for)
    sys.exit(main())
