"""Shape (PtychoNN PyTorch/CNN_encoder_decoder/train_noplotting.py): a script with no main guard that loads
its arrays (np.load) at import, builds DataLoader(TensorDataset, num_workers=4) and iterates it at top level.
cases: unguarded (WSP101 + WSP103: each spawned worker re-imports the script as __mp_main__, reloads the data
       and tries to start workers again -> RuntimeError bootstrapping phase), guarded (safe twin),
       tensordataset (safe: the same loader under a guard; TensorDataset/Subset are importable torch classes,
       as in the notebooks)"""
import os, sys, tempfile
import numpy as np
import torch
from torch.utils.data import TensorDataset, DataLoader

CASE = sys.argv[1]
DATA = os.path.join(tempfile.gettempdir(), "i3_06_diff.npy")
if not os.path.exists(DATA):
    np.save(DATA, np.random.rand(32, 1, 8, 8).astype("float32"))
print("loading data in", __name__, flush=True)


def prepare_dataloader(path):
    x = torch.tensor(np.load(path))
    ds = TensorDataset(x, x)
    tr, va = torch.utils.data.random_split(ds, [24, 8])
    return DataLoader(tr, batch_size=8, num_workers=2), DataLoader(va, batch_size=8, num_workers=2)


def train(loader):
    return sum(float(a.sum()) for a, b in loader)


if CASE == "unguarded":
    trainloader, validloader = prepare_dataloader(DATA)
    for a, b in trainloader:
        break
    for epoch in range(1):
        print(train(trainloader))
    print("OK", CASE)

if __name__ == "__main__" and CASE in ("guarded", "tensordataset"):
    trainloader, validloader = prepare_dataloader(DATA)
    for epoch in range(1):
        print(train(trainloader), train(validloader))
    print("OK", CASE)
