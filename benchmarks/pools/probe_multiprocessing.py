"""Probe: the standard library's multiprocessing (Pool, Process, get_context) and concurrent.futures.

    python -m winspawn_lint.spawnrun --start-method spawn benchmarks/pools/probe_multiprocessing.py [--api Pool]

The emulator patches multiprocessing's default context, so Pool, Process and ProcessPoolExecutor follow it;
``get_context("spawn")`` is spawn under every emulation (it names its start method).
"""
import os

import _harness

_harness.record_import(__name__)

import concurrent.futures
import multiprocessing


def module_fn(x):
    import os, sys
    return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]


def _put(queue, fn, x):
    queue.put(fn(x))


def run_pool(fn, workers=1, ctx=multiprocessing):
    with ctx.Pool(workers) as pool:
        return pool.map_async(fn, _harness.INPUTS).get(_harness.CASE_TIMEOUT)


def run_process(fn, ctx=multiprocessing):
    queue = ctx.Queue()
    rows = []
    for x in _harness.INPUTS:
        proc = ctx.Process(target=_put, args=(queue, fn, x))
        proc.start()
        rows.append(queue.get(timeout=_harness.CASE_TIMEOUT))
        proc.join()
    return rows


def run_executor(fn, workers=1, ctx=None, **options):
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=ctx, **options) as pool:
        return list(pool.map(fn, _harness.INPUTS))


if __name__ == "__main__":
    PROBE_PARENT = os.getpid()
    NOTEBOOK_OFFSET = 1

    def notebook_fn(x):
        import os, sys
        return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]

    def notebook_global(x):
        import os, sys
        return [x + NOTEBOOK_OFFSET, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]

    spawn = multiprocessing.get_context("spawn")
    _harness.main(
        "multiprocessing", "python",
        apis={
            "Pool": run_pool,
            "Process": run_process,
            "get_context('spawn').Pool": lambda fn: run_pool(fn, ctx=spawn),
            "ProcessPoolExecutor": run_executor,
            # 3.11+: without mp_context, max_tasks_per_child picks get_context("spawn") (concurrent/futures/process.py)
            "ProcessPoolExecutor(max_tasks_per_child=1)": lambda fn: run_executor(fn, max_tasks_per_child=1),
        },
        payloads={"module_fn": module_fn, **_harness.local_payloads(), "notebook_fn": notebook_fn,
                  "notebook_global": notebook_global},
        counts={
            "Pool": [("processes=0", lambda: run_pool(module_fn, 0)),
                     ("processes=None", lambda: run_pool(module_fn, None))],
            "ProcessPoolExecutor": [("max_workers=0", lambda: run_executor(module_fn, 0)),
                                    ("max_workers=None", lambda: run_executor(module_fn, None))],
        },
    )
