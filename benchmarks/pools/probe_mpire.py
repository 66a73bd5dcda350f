"""Probe: mpire's WorkerPool, with its default start method, with spawn, and with ``use_dill``.

    python -m winspawn_lint.spawnrun --start-method spawn benchmarks/pools/probe_mpire.py [--api WorkerPool]

mpire does not take the default context: it builds ``get_context('fork'|'forkserver'|'spawn')`` of multiprocessing
(or of multiprocess with ``use_dill=True``) at import, and its ``start_method`` defaults to 'fork' wherever fork
exists (mpire/context.py).  So the emulator does not reach it: Windows' behaviour is emulated by
``start_method='spawn'`` (the default there), Linux 3.14's by ``start_method='forkserver'``.
"""
import os

import _harness

_harness.record_import(__name__)
mpire = _harness.require("mpire")
from mpire import WorkerPool


def module_fn(x):
    import os, sys
    return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]


def run(fn, n_jobs=1, **options):
    with WorkerPool(n_jobs=n_jobs, **options) as pool:
        # a list of 1-tuples: mpire unpacks each task as the function's arguments
        return pool.map(fn, [(x,) for x in _harness.INPUTS], progress_bar=False)


if __name__ == "__main__":
    PROBE_PARENT = os.getpid()
    NOTEBOOK_OFFSET = 1

    def notebook_fn(x):
        import os, sys
        return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]

    def notebook_global(x):
        import os, sys
        return [x + NOTEBOOK_OFFSET, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]

    _harness.main(
        "mpire", "mpire",
        apis={
            "WorkerPool": run,
            "WorkerPool(start_method='spawn')": lambda fn: run(fn, start_method="spawn"),
            "WorkerPool(start_method='forkserver')": lambda fn: run(fn, start_method="forkserver"),
            "WorkerPool(use_dill=True, start_method='spawn')": lambda fn: run(fn, use_dill=True, start_method="spawn"),
        },
        payloads={"module_fn": module_fn, **_harness.local_payloads(), "notebook_fn": notebook_fn,
                  "notebook_global": notebook_global},
        counts={"WorkerPool": [("n_jobs=0", lambda: run(module_fn, 0)),
                               ("start_method='threading'", lambda: run(module_fn, start_method="threading"))]},
    )
