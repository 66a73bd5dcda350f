"""The machinery shared by the pool probes (``benchmarks/pools/probe_*.py``).

A probe is a script that ships small payloads to one process-pool library's workers and reports, one JSON line
per case on stdout (prefixed ``POOL_PROBE``), what happened:

* ``ok``: the result came back right; ``where`` says whether the payload ran in the main process, in a forked
  worker (it sees the parent's ``__main__``), or in a fresh interpreter, which did or did not re-import the
  main script;
* ``error``: the call raised (the exception's type and first line);
* ``hang``: no result within the case timeout (a pool whose worker died unpickling its task waits forever).

The payloads:

* ``module_fn``: a module-level function of the probe script (a ``__main__`` definition);
* ``lambda``, ``nested_fn``, ``local_class`` (an instance of a class defined in a function, called) and
  ``closure_lock`` (a nested function closing over a ``threading.Lock``: dill ships it, cloudpickle and pickle
  refuse the lock, so it tells dill from cloudpickle): built by :func:`local_payloads`;
* ``notebook_fn`` and ``notebook_global``: defined under the probe's ``if __name__ == "__main__":`` guard, as a
  notebook cell defines them: they exist in the parent's ``__main__`` but in no file a worker can import
  (``notebook_global`` also reads a global defined there).

Every payload returns ``[x + 1, pid, mark]``: *mark* is ``PROBE_PARENT`` of the ``__main__`` module the payload
finds, which only the parent's guarded code sets (so a forked worker sees it and a fresh interpreter does not).
Each probe script calls :func:`record_import` at its top, which appends ``<pid> <__name__>`` to the file named by
``POOL_PROBE_LOG``: a worker that re-imports the main script leaves a line there.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time

LOG_VAR = "POOL_PROBE_LOG"
PREFIX = "POOL_PROBE "
#: Printed on stderr before each case, so that a worker's traceback can be told to the case that caused it.
CASE_MARK = "POOL_PROBE_CASE "
INPUTS = (1, 2)
EXPECTED = [x + 1 for x in INPUTS]
CASE_TIMEOUT = float(os.environ.get("POOL_PROBE_CASE_TIMEOUT", "8"))


def record_import(name: str) -> None:
    """Note that this process executed the probe script's top level, under *name*."""
    path = os.environ.get(LOG_VAR)
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(f"{os.getpid()} {name}\n")


def emit(record: dict) -> None:
    print(PREFIX + json.dumps(record, sort_keys=True), flush=True)


def require(module: str):
    """Import *module*, or report the probe skipped (saying why) and exit 0."""
    import importlib

    try:
        return importlib.import_module(module)
    except Exception as exc:  # ImportError, or a broken install
        emit({"skip": f"{module} is not installed ({type(exc).__name__}: {exc})"})
        sys.stdout.flush()
        os._exit(0)


def version(distribution: str) -> str:
    from importlib.metadata import PackageNotFoundError, version as _version

    if distribution == "python":
        return sys.version.split()[0]

    try:
        return _version(distribution)
    except PackageNotFoundError:
        return "?"


def local_payloads() -> dict:
    """Payloads that standard pickle cannot ship by reference: defined inside this function."""
    lock = threading.Lock()

    def nested_fn(x):
        import os, sys
        return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]

    class LocalCallable:
        def __call__(self, x):
            import os, sys
            return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]

    def closure_lock(x):
        import os, sys
        with lock:
            return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]

    return {
        "lambda": lambda x: [x + 1, __import__("os").getpid(),
                             getattr(__import__("sys").modules["__main__"], "PROBE_PARENT", None)],
        "nested_fn": nested_fn,
        "local_class": LocalCallable(),
        "closure_lock": closure_lock,
    }


def _imports() -> list[tuple[int, str]]:
    path = os.environ.get(LOG_VAR)
    if not path or not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as log:
        return [(int(pid), name) for pid, name in (line.split() for line in log if line.strip())]


def _describe(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    cause = exc.__cause__ or exc.__context__
    out = f"{type(exc).__name__}: {text[:220]}"
    if cause is not None and type(cause).__name__ not in out and not type(cause).__name__.endswith("RemoteTraceback"):
        out += f" (from {type(cause).__name__}: {' '.join(str(cause).split())[:160]})"
    return out


def classify(value) -> dict:
    """What a case's returned rows say: the right answer, and where the payload ran."""
    try:
        rows = [list(row) for row in value]
        results = [row[0] for row in rows]
        pids = {int(row[1]) for row in rows}
        marks = {row[2] for row in rows}
    except Exception:
        return {"outcome": "wrong", "detail": f"unexpected result {value!r}"[:300]}
    if not rows:
        return {"outcome": "nothing ran", "detail": "returned without running the payload"}
    if results != EXPECTED:
        return {"outcome": "wrong", "detail": f"results {results!r}, expected {EXPECTED!r}"}
    me = os.getpid()
    reimported = {pid for pid, _ in _imports() if pid != me}
    places = set()
    for pid in pids:
        if pid == me:
            places.add("main process")
        elif marks == {me}:
            places.add("forked worker")
        elif pid in reimported:
            places.add("fresh worker, main re-imported")
        else:
            places.add("fresh worker, main not re-imported")
    return {"outcome": "ok", "where": ", ".join(sorted(places)), "worker_pids": len(pids - {me})}


class Hang(Exception):
    """Raised by a runner that noticed the hang itself (and stopped it)."""


def run_case(call, timeout: float = CASE_TIMEOUT) -> dict:
    """Run ``call()`` in a thread; a case that does not finish in *timeout* seconds is a hang."""
    box: dict = {}

    def target():
        try:
            box["value"] = call()
        except Hang as exc:
            box["hang"] = str(exc)
        except BaseException as exc:  # noqa: BLE001 -- every failure is a measurement
            box["error"] = _describe(exc)

    start = time.monotonic()
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    seconds = round(time.monotonic() - start, 2)
    if thread.is_alive():
        return {"outcome": "hang", "detail": f"no result in {timeout:g}s", "seconds": seconds}
    if "hang" in box:
        return {"outcome": "hang", "detail": box["hang"], "seconds": seconds}
    if "error" in box:
        return {"outcome": "error", "detail": box["error"], "seconds": seconds}
    return {**classify(box["value"]), "seconds": seconds}


def main(library: str, distribution: str, apis: dict, payloads: dict, counts: dict | None = None,
         extras: dict | None = None, timeouts: dict | None = None, cleanup=None) -> None:
    """Run every payload through every selected API, then the worker-count cases, and report.

    *apis*: name -> ``run(fn)`` that ships *fn* to the workers over :data:`INPUTS` and returns the rows.
    *counts*: name -> [(label, call)]: calls with a worker count that may mean "no worker process".
    *extras*: name -> [(label, call)]: further cases particular to the library.
    Each case reports how many processes executed the main script's top level while it ran (``reimports``).
    *cleanup*: called at the end (at most 10 s) to stop what the probe left running, e.g. a cluster.
    Ends the process with ``os._exit`` so that a hung pool cannot hold it; live multiprocessing children are
    terminated first.
    """
    parser = argparse.ArgumentParser()
    parser.add_argument("--api", action="append", help="run only this API (repeatable)")
    parser.add_argument("--list", action="store_true", help="print the API names and exit")
    parser.add_argument("--slice", default="1/1", metavar="I/N",
                        help="run only the I-th of N interleaved shares of the cases (to keep each run short)")
    args = parser.parse_args()
    share, shares = (int(part) for part in args.slice.split("/"))
    if args.list:
        print("\n".join(apis))
        sys.stdout.flush()
        os._exit(0)
    selected = args.api or list(apis)
    unknown = [name for name in selected if name not in apis]
    if unknown:
        parser.error(f"unknown API {unknown}; choose from {list(apis)}")
    import multiprocessing

    emit({"library": library, "version": version(distribution), "python": sys.version.split()[0],
          "mp_default_start_method": multiprocessing.get_start_method(allow_none=False), "main_pid": os.getpid()})
    cases = []
    for api in selected:
        cases += [(api, name, (lambda run=apis[api], fn=fn: run(fn))) for name, fn in payloads.items()]
        cases += [(api, f"count {label}", call) for label, call in (counts or {}).get(api, [])]
        cases += [(api, label, call) for label, call in (extras or {}).get(api, [])]
    for api, name, call in cases[share - 1::shares]:
        sys.stderr.write(f"\n{CASE_MARK}{api} {name}\n")
        sys.stderr.flush()
        before = len(_imports())
        result = run_case(call, (timeouts or {}).get(api, CASE_TIMEOUT))
        emit({"api": api, "case": name, **result, "reimports": len(_imports()) - before})
    me = os.getpid()
    emit({"imports": [[pid, name] for pid, name in _imports() if pid != me]})
    if cleanup is not None:
        run_case(cleanup, 10)
    for child in multiprocessing.active_children():
        child.terminate()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
