"""g3 shape 02: tutorial script with no main guard (Study/_Framework/PyTorch/tutorial_3_STN.py).

cases:
  unguarded_loop   loaders (num_workers=2) built and iterated by a top-level for loop   (hazard, WSP101)
  import_build     loop guarded, but the dataset is built at module top level: each spawned
                   worker re-imports the script and rebuilds it (count the builds)       (hazard, WSP103)
  guarded          everything inside main() under the guard                               (safe)
"""
import os, sys, tempfile
import torch
from torch.utils.data import TensorDataset, DataLoader

CASE = sys.argv[1] if len(sys.argv) > 1 else "guarded"
MARK = os.path.join(tempfile.gettempdir(), "g_g3_02_builds.txt")

def build_dataset():
    # stands for datasets.MNIST(root='.', download=True, transform=...) at import time
    with open(MARK, "a") as f:
        f.write(f"{os.getpid()}\n")
    return TensorDataset(torch.randn(16, 1, 4, 4), torch.arange(16))

def train(epoch, loader):
    return sum(x.shape[0] for x, y in loader)

if CASE in ("unguarded_loop", "import_build"):
    train_loader = DataLoader(build_dataset(), batch_size=4, shuffle=True, num_workers=2)

if CASE == "unguarded_loop":
    for epoch in range(1, 3):
        print("epoch", epoch, train(epoch, train_loader))
    print("OK")

def main():
    loader = DataLoader(build_dataset(), batch_size=4, shuffle=True, num_workers=2)
    for epoch in range(1, 3):
        print("epoch", epoch, train(epoch, loader))

if __name__ == "__main__":
    if CASE == "import_build":
        for epoch in range(1, 3):
            print("epoch", epoch, train(epoch, train_loader))
        n = len(open(MARK).read().split())
        os.remove(MARK)
        print("OK dataset builds:", n, "(1 expected without re-import)")
    elif CASE == "guarded":
        main()
        n = len(open(MARK).read().split())
        os.remove(MARK)
        print("OK dataset builds:", n)
