"""n4 shape 03: an unguarded evaluation script (WildAnimalDetection model/pipeline.py):
dataset built and weights loaded at import (WSP103), then `for data in dataloader` with
num_workers=4 at top level (WSP101).
Cases: hazard (unguarded), safe (the same body under the main guard).
"""
import os, sys, tempfile
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

case = sys.argv[1] if len(sys.argv) > 1 else "hazard"
CK = os.path.join(tempfile.gettempdir(), "n_n4_03_best_model.pt")
if not os.path.exists(CK):
    torch.save(nn.Linear(1, 2).state_dict(), CK)


def body():
    print("Preparing dataset...", os.getpid())
    ds = TensorDataset(torch.arange(8.0).view(8, 1))
    dataloader = DataLoader(ds, 4, shuffle=False, num_workers=4)
    model1 = nn.Linear(1, 2)
    model1.load_state_dict(torch.load(CK))
    n = 0
    for data in dataloader:
        n += data[0].shape[0]
    print("OK", n)


if case == "hazard":
    body()
elif case == "safe" and __name__ == "__main__":
    body()
