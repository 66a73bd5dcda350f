"""Probe: Hugging Face datasets' ``Dataset.map(num_proc=...)``, ``Dataset.filter(num_proc=...)`` and
``save_to_disk(num_proc=...)``.

    python -m winspawn_lint.spawnrun --start-method spawn benchmarks/pools/probe_datasets.py [--api Dataset.map]

map and filter shard the dataset over ``multiprocess.Pool(num_proc)`` (dill), which the emulator patches;
save_to_disk uses ``multiprocess.get_context("spawn")``.  The payload goes as ``fn_kwargs``, which travels in the
same pickled job as the function itself.
"""
import json
import os
import tempfile

import _harness

_harness.record_import(__name__)
datasets = _harness.require("datasets")
datasets.disable_progress_bars()
datasets.logging.set_verbosity_error()


def module_fn(x):
    import os, sys
    return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]


def _apply(example, fn):
    y, pid, mark = fn(example["x"])
    return {"y": y, "pid": pid, "mark": mark}


def _keep(example, fn, folder):
    with open(os.path.join(folder, f"{example['x']}.json"), "w") as out:
        json.dump(fn(example["x"]), out)
    return True


def _dataset():
    return datasets.Dataset.from_dict({"x": list(_harness.INPUTS)})


def run_map(fn, num_proc=1):
    out = _dataset().map(_apply, fn_kwargs={"fn": fn}, num_proc=num_proc)
    return [[row["y"], row["pid"], row["mark"]] for row in out]


def run_filter(fn, num_proc=1):
    with tempfile.TemporaryDirectory() as folder:
        _dataset().filter(_keep, fn_kwargs={"fn": fn, "folder": folder}, num_proc=num_proc)
        rows = []
        for x in _harness.INPUTS:
            with open(os.path.join(folder, f"{x}.json")) as out:
                rows.append(json.load(out))
    return rows


def save_to_disk(num_proc):
    """No user callable travels: the case tells whether the main module is re-imported (see ``reimports``)."""
    with tempfile.TemporaryDirectory() as folder:
        _dataset().save_to_disk(folder, num_proc=num_proc)
    return [[x + 1, os.getpid(), None] for x in _harness.INPUTS]


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
        "datasets", "datasets",
        apis={"Dataset.map": run_map, "Dataset.filter": run_filter},
        payloads={"module_fn": module_fn, **_harness.local_payloads(), "notebook_fn": notebook_fn,
                  "notebook_global": notebook_global},
        counts={"Dataset.map": [("num_proc=None", lambda: run_map(module_fn, None)),
                                ("num_proc=0", lambda: run_map(module_fn, 0))]},
        extras={"Dataset.map": [("save_to_disk(num_proc=1)", lambda: save_to_disk(1)),
                                ("save_to_disk(num_proc=None)", lambda: save_to_disk(None))]},
        timeouts={"Dataset.map": 15, "Dataset.filter": 15},
    )
