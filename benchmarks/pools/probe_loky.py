"""Probe: loky's reusable executor, used directly.

    python -m winspawn_lint.spawnrun --start-method spawn benchmarks/pools/probe_loky.py

loky's default context is its own "loky" (fork + exec on POSIX, spawn on Windows): the emulator does not reach
it, and does not need to, since its workers are fresh interpreters on every OS.  ``context="loky_init_main"``
is loky's variant that re-imports the main module as spawn does.
"""
import os

import _harness

_harness.record_import(__name__)
loky = _harness.require("loky")


def module_fn(x):
    import os, sys
    return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]


def run(fn, workers=1, **options):
    executor = loky.get_reusable_executor(max_workers=workers, **options)
    try:
        return list(executor.map(fn, _harness.INPUTS, timeout=_harness.CASE_TIMEOUT))
    finally:
        executor.shutdown(wait=True, kill_workers=True)


def run_submit(fn, workers=1):
    executor = loky.get_reusable_executor(max_workers=workers)
    try:
        return [executor.submit(fn, x).result(_harness.CASE_TIMEOUT) for x in _harness.INPUTS]
    finally:
        executor.shutdown(wait=True, kill_workers=True)


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
        "loky", "loky",
        apis={
            "get_reusable_executor().map": run,
            "get_reusable_executor().submit": run_submit,
            "get_reusable_executor(context='loky_init_main')": lambda fn: run(fn, context="loky_init_main"),
        },
        payloads={"module_fn": module_fn, **_harness.local_payloads(), "notebook_fn": notebook_fn,
                  "notebook_global": notebook_global},
        counts={"get_reusable_executor().map": [("max_workers=0", lambda: run(module_fn, 0)),
                                                ("max_workers=None", lambda: run(module_fn, None))]},
    )
