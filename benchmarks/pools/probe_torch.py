"""Probe: torch.multiprocessing (spawn, Pool, Process) and the workers of torch.utils.data.DataLoader.

    python -m winspawn_lint.spawnrun --start-method spawn benchmarks/pools/probe_torch.py [--api DataLoader]

torch.multiprocessing is multiprocessing with torch's reductions registered on its pickler, so the emulator reaches
its Pool and Process, and the DataLoader (whose ``multiprocessing_context=None`` takes the default context).
``torch.multiprocessing.spawn`` always uses the spawn context.
"""
import json
import os
import tempfile

import _harness

_harness.record_import(__name__)
torch = _harness.require("torch")
import torch.multiprocessing as tmp
from torch.utils.data import DataLoader


def module_fn(x):
    import os, sys
    return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]


def _rank_main(rank, fn, folder, nprocs):
    """torch.multiprocessing.spawn's target: rank r computes the inputs r, r + nprocs, ... and writes them."""
    rows = [fn(x) for x in _harness.INPUTS[rank::nprocs]]
    with open(os.path.join(folder, f"{rank}.json"), "w") as out:
        json.dump(rows, out)


def _put(queue, fn, x):
    queue.put(fn(x))


def run_spawn(fn, nprocs=1):
    with tempfile.TemporaryDirectory() as folder:
        tmp.spawn(_rank_main, args=(fn, folder, nprocs), nprocs=nprocs)
        rows = []
        for rank in range(nprocs):
            with open(os.path.join(folder, f"{rank}.json")) as out:
                rows += json.load(out)
    return sorted(rows)


def run_pool(fn, workers=1):
    with tmp.Pool(workers) as pool:
        return pool.map_async(fn, _harness.INPUTS).get(_harness.CASE_TIMEOUT)


def run_process(fn):
    queue = tmp.Queue()
    rows = []
    for x in _harness.INPUTS:
        proc = tmp.Process(target=_put, args=(queue, fn, x))
        proc.start()
        rows.append(queue.get(timeout=_harness.CASE_TIMEOUT))
        proc.join()
    return rows


def run_loader(fn, workers=1):
    # batch_size=None: no batching, so collate_fn is applied to each sample, in the worker that loaded it.
    return list(DataLoader(list(_harness.INPUTS), batch_size=None, num_workers=workers, collate_fn=fn))


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
        "torch", "torch",
        apis={
            "multiprocessing.spawn": run_spawn,
            "multiprocessing.Pool": run_pool,
            "multiprocessing.Process": run_process,
            "DataLoader(collate_fn)": run_loader,
        },
        payloads={"module_fn": module_fn, **_harness.local_payloads(), "notebook_fn": notebook_fn,
                  "notebook_global": notebook_global},
        counts={
            "multiprocessing.spawn": [("nprocs=0", lambda: run_spawn(module_fn, 0))],
            "multiprocessing.Pool": [("processes=0", lambda: run_pool(module_fn, 0))],
            "DataLoader(collate_fn)": [("num_workers=0", lambda: run_loader(module_fn, 0))],
        },
        timeouts={"multiprocessing.spawn": 15, "multiprocessing.Process": 15, "DataLoader(collate_fn)": 15},
    )
