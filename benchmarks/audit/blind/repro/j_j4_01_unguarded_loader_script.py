"""Shape: a training script (pruning.py, cifar_robust_train.py, run.py, run_distill.py) builds its dataset at
import time and iterates a DataLoader(num_workers>0) from top-level code, with no main guard.
Cases: hazard (unguarded; also counts the import-time dataset build), safe (same body under the guard)."""
import os, sys, tempfile
import torch
from torch.utils.data import DataLoader, Dataset

CASE = sys.argv[1] if len(sys.argv) > 1 else "hazard"
MARK = os.path.join(tempfile.gettempdir(), "j_j4_01_builds.txt")

class Tiny(Dataset):
    def __len__(self): return 8
    def __getitem__(self, i): return torch.tensor([float(i)])

def build():  # stands in for datasets.MNIST(..., download=True) / CIFAR10(...) at import time
    with open(MARK, "a") as f:
        f.write(f"{os.getpid()}\n")
    return Tiny()

def train(loader):
    return sum(float(b.sum()) for b in loader)

if CASE == "hazard":
    ds = build()
    loader = DataLoader(ds, batch_size=4, num_workers=2)
    print("total", train(loader))          # the unguarded statement that starts workers
elif CASE == "safe":
    if __name__ == "__main__":
        if os.path.exists(MARK): os.remove(MARK)
        ds = build()
        loader = DataLoader(ds, batch_size=4, num_workers=2)
        print("total", train(loader))
        print("builds", len(open(MARK).read().split()))
