"""Probe: ray (remote tasks, and ray.util.multiprocessing.Pool).

    python -m winspawn_lint.spawnrun --start-method spawn benchmarks/pools/probe_ray.py [--api ray.remote]

Ray's workers are interpreters that its raylet starts (``default_worker.py``), on every OS: no multiprocessing
start method applies, so the emulator changes nothing here.  One local Ray instance (1 CPU, no dashboard) serves
every case, from one thread: the harness runs each case in a thread of its own, and ray 2.60 calls made from a
thread other than the one that called ``ray.init`` after that thread ended blocked forever in the GCS client
(``function_manager.export``), whatever the payload.
"""
import os

import _harness

_harness.record_import(__name__)
ray = _harness.require("ray")
from concurrent.futures import ThreadPoolExecutor

_RAY_THREAD = ThreadPoolExecutor(1)


def module_fn(x):
    import os, sys
    return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]


def _call(fn, x):
    return fn(x)


def _init():
    if not ray.is_initialized():
        ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False)


def on_ray_thread(run):
    return lambda *args, **kwargs: _RAY_THREAD.submit(run, *args, **kwargs).result()


@on_ray_thread
def run_remote(fn):
    _init()
    if callable(fn) and hasattr(fn, "__code__"):
        remote = ray.remote(fn)
        refs = [remote.remote(x) for x in _harness.INPUTS]
    else:  # a callable object: shipped as an argument of a module-level task
        remote = ray.remote(_call)
        refs = [remote.remote(fn, x) for x in _harness.INPUTS]
    return ray.get(refs, timeout=_harness.CASE_TIMEOUT)


@on_ray_thread
def run_pool(fn, processes=1):
    _init()
    from ray.util.multiprocessing import Pool

    pool = Pool(processes=processes)
    try:
        return pool.map(fn, _harness.INPUTS)
    finally:
        pool.terminate()


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
        "ray", "ray",
        apis={"ray.remote": run_remote, "util.multiprocessing.Pool": run_pool},
        payloads={"module_fn": module_fn, **_harness.local_payloads(), "notebook_fn": notebook_fn,
                  "notebook_global": notebook_global},
        counts={"util.multiprocessing.Pool": [("processes=0", lambda: run_pool(module_fn, 0))]},
        timeouts={"ray.remote": 25, "util.multiprocessing.Pool": 25},
        cleanup=on_ray_thread(ray.shutdown),
    )
