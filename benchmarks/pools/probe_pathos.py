"""Probe: pathos (ProcessPool on multiprocess; ParallelPool on ppft) and p_tqdm (ProcessPool with a progress bar).

    python -m winspawn_lint.spawnrun --start-method spawn benchmarks/pools/probe_pathos.py [--api ProcessPool]

pathos' ProcessPool is multiprocess.Pool (dill), which the emulator patches; ParallelPool starts ppft's
``ppworker`` interpreters with subprocess, which no start method governs.  pathos caches one pool per
(class, nodes, id): each case asks for a pool of its own ``id``, so that a pool broken by one case does not
serve the next.
"""
import os

import _harness

_harness.record_import(__name__)
pathos_pools = _harness.require("pathos.pools")


def module_fn(x):
    import os, sys
    return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]


_ids = iter(range(1_000_000))


def run_process_pool(fn, nodes=1):
    pool = pathos_pools.ProcessPool(nodes=nodes, id=f"probe-{next(_ids)}")
    try:
        return pool.map(fn, _harness.INPUTS)
    finally:
        pool.close()
        pool.join()
        pool.clear()


def run_parallel_pool(fn, nodes=1):
    pool = pathos_pools.ParallelPool(nodes=nodes, id=f"probe-{next(_ids)}")
    try:
        return pool.map(fn, _harness.INPUTS)
    finally:
        pool.clear()


def run_p_map(fn, num_cpus=1):
    from p_tqdm import p_map

    return p_map(fn, _harness.INPUTS, num_cpus=num_cpus, disable=True)


if __name__ == "__main__":
    PROBE_PARENT = os.getpid()
    NOTEBOOK_OFFSET = 1

    def notebook_fn(x):
        import os, sys
        return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]

    def notebook_global(x):
        import os, sys
        return [x + NOTEBOOK_OFFSET, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]

    # ppft ships a function's source text: a lambda travels only when its line is a statement of its own
    statement_lambda = lambda x: [x + 1, __import__("os").getpid(), getattr(__import__("sys").modules["__main__"], "PROBE_PARENT", None)]  # noqa: E501, E731

    apis = {"ProcessPool": run_process_pool, "ParallelPool": run_parallel_pool}
    try:
        import p_tqdm  # noqa: F401
        apis["p_tqdm.p_map"] = run_p_map
    except ImportError:
        _harness.emit({"note": "p_tqdm is not installed: its API is skipped"})
    _harness.main(
        "pathos", "pathos",
        apis=apis,
        payloads={"module_fn": module_fn, **_harness.local_payloads(), "notebook_fn": notebook_fn,
                  "notebook_global": notebook_global},
        counts={
            "ProcessPool": [("nodes=0", lambda: run_process_pool(module_fn, 0))],
            "ParallelPool": [("nodes=0", lambda: run_parallel_pool(module_fn, 0))],
            "p_tqdm.p_map": [("num_cpus=0", lambda: run_p_map(module_fn, 0))],
        },
        extras={"ParallelPool": [("lambda alone on its line", lambda: run_parallel_pool(statement_lambda))]},
    )
