"""c_c1_03: SST train.py shape: argparse, dataset build (train.py:130) and the epoch loop that iterates
DataLoader(num_workers=args.nthreads, default 1) (train.py:281) all at module level, no main guard.
Each build appends a line to a counter file so the repeats in workers are visible.  Cases:
  hazard     - build and loop at module level (the repository's code)
  build_only - build at module level, loop under the guard: the build repeats in every worker
  guarded    - both under the guard (fix)
"""
import os
import sys
import tempfile

import torch
from torch.utils.data import DataLoader, TensorDataset

CASE = sys.argv[1]
COUNTER = os.path.join(tempfile.gettempdir(), "c_c1_03_builds_%s.txt" % CASE)


def build_dataset():
    with open(COUNTER, "a") as f:
        f.write("%d\n" % os.getpid())
    return TensorDataset(torch.arange(8.0))


def train(loader):
    return sum(float(b.sum()) for (b,) in loader)


def report():
    with open(COUNTER) as f:
        print("builds", len(f.read().split()))


if CASE == "hazard":
    if __name__ == "__main__" and os.path.exists(COUNTER):
        os.remove(COUNTER)
    dataset = build_dataset()
    loader = DataLoader(dataset, batch_size=4, num_workers=1)
    for epoch in range(1, 3):
        print("epoch", epoch, train(loader))
    report()
elif CASE == "build_only":
    if __name__ == "__main__" and os.path.exists(COUNTER):
        os.remove(COUNTER)
    dataset = build_dataset()
    if __name__ == "__main__":
        loader = DataLoader(dataset, batch_size=4, num_workers=1)
        for epoch in range(1, 3):
            print("epoch", epoch, train(loader))
        report()
elif __name__ == "__main__":
    if os.path.exists(COUNTER):
        os.remove(COUNTER)
    dataset = build_dataset()
    loader = DataLoader(dataset, batch_size=4, num_workers=1)
    for epoch in range(1, 3):
        print("epoch", epoch, train(loader))
    report()
