"""Probe: multiprocess, the dill-based fork of multiprocessing (Pool, Process, get_context).

    python -m winspawn_lint.spawnrun --start-method spawn benchmarks/pools/probe_multiprocess.py [--api Pool]

The emulator patches ``multiprocess.context`` when it is first imported, so its Pool and Process follow the
emulated default; ``get_context("spawn")`` is spawn under every emulation.
"""
import os

import _harness

_harness.record_import(__name__)
multiprocess = _harness.require("multiprocess")


def module_fn(x):
    import os, sys
    return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]


def _put(queue, fn, x):
    queue.put(fn(x))


def run_pool(fn, workers=1, ctx=multiprocess):
    with ctx.Pool(workers) as pool:
        return pool.map_async(fn, _harness.INPUTS).get(_harness.CASE_TIMEOUT)


def run_process(fn, ctx=multiprocess):
    queue = ctx.Queue()
    rows = []
    for x in _harness.INPUTS:
        proc = ctx.Process(target=_put, args=(queue, fn, x))
        proc.start()
        rows.append(queue.get(timeout=_harness.CASE_TIMEOUT))
        proc.join()
    return rows


if __name__ == "__main__":
    PROBE_PARENT = os.getpid()
    NOTEBOOK_OFFSET = 1

    def notebook_fn(x):
        import os, sys
        return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]

    def notebook_global(x):
        import os, sys
        return [x + NOTEBOOK_OFFSET, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]

    spawn = multiprocess.get_context("spawn")
    _harness.main(
        "multiprocess", "multiprocess",
        apis={
            "Pool": run_pool,
            "Process": run_process,
            "get_context('spawn').Pool": lambda fn: run_pool(fn, ctx=spawn),
        },
        payloads={"module_fn": module_fn, **_harness.local_payloads(), "notebook_fn": notebook_fn,
                  "notebook_global": notebook_global},
        counts={"Pool": [("processes=0", lambda: run_pool(module_fn, 0))]},
    )
