"""Probe: dask's local "processes" scheduler (dask.bag's default) and dask.distributed's LocalCluster.

    python -m winspawn_lint.spawnrun --start-method spawn benchmarks/pools/probe_dask.py [--api NAME]

Both name their start method (config ``multiprocessing.context`` and ``distributed.worker.multiprocessing-method``,
"spawn" by default), so the emulator does not change them: their workers are spawned under every emulation.
"""
import os

import _harness

_harness.record_import(__name__)
dask = _harness.require("dask")

_client = {}


def module_fn(x):
    import os, sys
    return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]


def run_local(fn, num_workers=1, scheduler="processes"):
    tasks = [dask.delayed(fn, pure=False)(x) for x in _harness.INPUTS]
    return list(dask.compute(*tasks, scheduler=scheduler, num_workers=num_workers))


def run_bag(fn):
    """dask.bag computes with the multiprocessing scheduler unless told otherwise (Bag.__dask_scheduler__)."""
    import dask.bag

    return dask.bag.from_sequence(_harness.INPUTS, npartitions=1).map(fn).compute(num_workers=1)


def client(processes=True):
    if processes not in _client:
        from dask.distributed import Client, LocalCluster

        cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=processes, dashboard_address=None)
        _client[processes] = Client(cluster)
    return _client[processes]


def run_distributed(fn, processes=True):
    c = client(processes)
    return c.gather(c.map(fn, _harness.INPUTS, pure=False))


def close_clients():
    for c in _client.values():
        c.close()
        c.cluster.close()


if __name__ == "__main__":
    PROBE_PARENT = os.getpid()
    NOTEBOOK_OFFSET = 1

    def notebook_fn(x):
        import os, sys
        return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]

    def notebook_global(x):
        import os, sys
        return [x + NOTEBOOK_OFFSET, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]

    apis = {"compute(scheduler='processes')": run_local, "bag.map().compute() (default scheduler)": run_bag}
    counts = {"compute(scheduler='processes')": [("num_workers=1", lambda: run_local(module_fn, 1)),
                                                 ("scheduler='threads'", lambda: run_local(module_fn, 1, "threads"))]}
    try:
        import distributed  # noqa: F401
        apis["distributed.LocalCluster(processes=True)"] = run_distributed
        counts["distributed.LocalCluster(processes=True)"] = [
            ("LocalCluster(processes=False)", lambda: run_distributed(module_fn, processes=False))]
    except ImportError:
        _harness.emit({"note": "distributed is not installed: its API is skipped"})
    _harness.main(
        "dask", "dask",
        apis=apis,
        payloads={"module_fn": module_fn, **_harness.local_payloads(), "notebook_fn": notebook_fn,
                  "notebook_global": notebook_global},
        counts=counts,
        timeouts={"distributed.LocalCluster(processes=True)": 20},
        cleanup=close_clients,
    )
