"""Probe: tqdm.contrib.concurrent.process_map (a ProcessPoolExecutor with a progress bar).

    python -m winspawn_lint.spawnrun --start-method spawn benchmarks/pools/probe_tqdm.py

process_map builds ``ProcessPoolExecutor(max_workers=...)`` without a context, so the emulator reaches it.
"""
import os

import _harness

_harness.record_import(__name__)
tqdm = _harness.require("tqdm")
from tqdm.contrib.concurrent import process_map


def module_fn(x):
    import os, sys
    return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]


def run(fn, **options):
    options.setdefault("max_workers", 1)
    return process_map(fn, _harness.INPUTS, disable=True, **options)


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
        "tqdm", "tqdm",
        apis={"contrib.concurrent.process_map": run},
        payloads={"module_fn": module_fn, **_harness.local_payloads(), "notebook_fn": notebook_fn,
                  "notebook_global": notebook_global},
        counts={"contrib.concurrent.process_map": [("max_workers=0", lambda: run(module_fn, max_workers=0)),
                                                   ("max_workers=None", lambda: run(module_fn, max_workers=None))]},
    )
