"""Shape d_d1_03: heavy load at import time of a module that DataLoader workers re-import under spawn.
cases: script_load (a-PyTorch-Tutorial-to-Object-Detection eval.py: torch.load at module level, evaluate()
under the guard iterates DataLoader(num_workers=4 -> 2)), imported_module (BasicSTISR: main.py imports
interfaces/super_resolution.py, which loads a model at import), no_workers (detect.py: torch.load at import,
no worker process), guarded_load (the load moved under the guard: safe twin).
Outcome: the number of processes that performed the load (1 = parent only)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
from torch.utils.data import DataLoader
from common import heavy_load, report, PascalVOCDataset

CASE = sys.argv[1]
if CASE == "imported_module":
    import interfaces.super_resolution  # noqa: F401
if CASE in ("script_load", "no_workers"):
    checkpoint = heavy_load(CASE)

if __name__ == "__main__":
    if CASE == "guarded_load":
        checkpoint = heavy_load(CASE)
    if CASE == "no_workers":
        print("OK detect", float(checkpoint["w"].sum()))
    else:
        loader = DataLoader(PascalVOCDataset(), batch_size=2, num_workers=2)
        print("OK batches", len([b for b in loader]))
    print("processes that loaded:", report())
