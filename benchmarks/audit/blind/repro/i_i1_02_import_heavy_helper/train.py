"""Mimics GNT train.py: `from utils import ...` at top, guarded main, DataLoader(num_workers=2).
Cases: hazard (utils builds the model at import: each spawned worker re-imports train.py ->
utils -> loads again), safe (LAZY=1: built on first use in the parent only)."""
import os
import sys
import tempfile

case = sys.argv[1] if len(sys.argv) > 1 else "hazard"
if __name__ == "__main__":
    os.environ["LAZY"] = "1" if case == "safe" else "0"
    os.environ["HEAVY_MARKER"] = os.path.join(tempfile.gettempdir(), "i_i1_02_marker_%d.txt" % os.getpid())

import torch
from torch.utils.data import DataLoader, TensorDataset
from utils import get_lpips


def main():
    get_lpips()
    loader = DataLoader(TensorDataset(torch.zeros(4, 1)), batch_size=1, num_workers=2)
    for _ in loader:
        pass
    with open(os.environ["HEAVY_MARKER"]) as f:
        loads = f.read().splitlines()
    os.remove(os.environ["HEAVY_MARKER"])
    print("model loads:", len(loads), "(1 = parent only; >1 = repeated in workers)")


if __name__ == "__main__":
    main()
