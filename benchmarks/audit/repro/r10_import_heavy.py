"""r10: heavy work at module level of a script whose workers are started under the guard (WSP103).

Case: heavy = torch.load of a checkpoint at module level, DataLoader(num_workers=2) iterated under
the guard: the LOADING marker is printed once per process that imports the script.
Case: guarded = the same load inside the guard.
"""
import os
import sys
import tempfile

import torch
from torch.utils.data import DataLoader, TensorDataset

CKPT = os.path.join(tempfile.gettempdir(), "audit11_r10.pt")
if not os.path.exists(CKPT):
    torch.save(torch.ones(3), CKPT)

if sys.argv[1] == "heavy":
    print("LOADING", flush=True)
    weights = torch.load(CKPT)


def main():
    loader = DataLoader(TensorDataset(torch.arange(8.0)), batch_size=4, num_workers=2)
    print("sum", sum(x.sum().item() for (x,) in loader))


if __name__ == "__main__":
    if sys.argv[1] == "guarded":
        print("LOADING", flush=True)
        weights = torch.load(CKPT)
    main()
