"""Probe: joblib.Parallel with its backends (loky, the default; "multiprocessing"; "threading").

    python -m winspawn_lint.spawnrun --start-method spawn benchmarks/pools/probe_joblib.py [--api loky]

loky starts its workers itself (fork + exec of a fresh interpreter on POSIX, spawn on Windows) whatever the
default start method is, so the emulator does not change it; the "multiprocessing" backend takes multiprocessing's
default context (unless JOBLIB_START_METHOD is set), which the emulator patches.
"""
import os

import _harness

_harness.record_import(__name__)
joblib = _harness.require("joblib")
from joblib import Parallel, delayed


def module_fn(x):
    import os, sys
    return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]


def run(fn, backend=None, n_jobs=2):
    # joblib reuses loky's executor between calls; each case still gets its result from a worker
    return Parallel(n_jobs=n_jobs, backend=backend)(delayed(fn)(x) for x in _harness.INPUTS)


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
        "joblib", "joblib",
        apis={
            "Parallel (loky)": run,
            "Parallel(backend='multiprocessing')": lambda fn: run(fn, "multiprocessing"),
            "Parallel(backend='threading')": lambda fn: run(fn, "threading"),
        },
        payloads={"module_fn": module_fn, **_harness.local_payloads(), "notebook_fn": notebook_fn,
                  "notebook_global": notebook_global},
        counts={
            "Parallel (loky)": [("n_jobs=1", lambda: run(module_fn, n_jobs=1)),
                                ("n_jobs=None", lambda: run(module_fn, n_jobs=None)),
                                ("n_jobs=0", lambda: run(module_fn, n_jobs=0))],
            "Parallel(backend='multiprocessing')": [("n_jobs=1", lambda: run(module_fn, "multiprocessing", 1))],
        },
    )
