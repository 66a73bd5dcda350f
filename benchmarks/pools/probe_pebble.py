"""Probe: pebble (ProcessPool, and the concurrent.process decorator).

    python -m winspawn_lint.spawnrun --start-method spawn benchmarks/pools/probe_pebble.py [--api ProcessPool]

Both take their processes from the ``multiprocessing`` module unless given a context, so the emulator reaches
them.  Under a start method other than fork the decorator ships a "trampoline" that looks the function up by
``__qualname__`` in its module, in the worker.
"""
import multiprocessing
import os

import _harness

_harness.record_import(__name__)
pebble = _harness.require("pebble")
from pebble import ProcessPool, concurrent


def module_fn(x):
    import os, sys
    return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]


@concurrent.process
def decorated_fn(x):
    """The decorator's documented use: the module's name now holds the wrapper, not this function."""
    import os, sys
    return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]


def run_pool(fn, workers=1):
    with ProcessPool(max_workers=workers) as pool:
        return list(pool.map(fn, _harness.INPUTS, timeout=_harness.CASE_TIMEOUT).result())


def run_schedule(fn, workers=1):
    with ProcessPool(max_workers=workers) as pool:
        futures = [pool.schedule(fn, args=(x,)) for x in _harness.INPUTS]
        return [future.result() for future in futures]


def run_decorator(fn, **options):
    wrapped = concurrent.process(**options)(fn) if options else concurrent.process(fn)
    return [wrapped(x).result() for x in _harness.INPUTS]


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
        "pebble", "pebble",
        apis={"ProcessPool.map": run_pool, "ProcessPool.schedule": run_schedule, "concurrent.process": run_decorator},
        payloads={"module_fn": module_fn, **_harness.local_payloads(), "notebook_fn": notebook_fn,
                  "notebook_global": notebook_global},
        counts={"ProcessPool.map": [("max_workers=0", lambda: run_pool(module_fn, 0))]},
        extras={"concurrent.process": [
            ("@process at module level", lambda: [decorated_fn(x).result() for x in _harness.INPUTS]),
            ("process(mp_context=spawn)", lambda: run_decorator(module_fn, mp_context=spawn)),
            ("process(context=spawn)", lambda: run_decorator(module_fn, context=spawn)),
        ]},
    )
