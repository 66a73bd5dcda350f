"""Mimics PytorchDigitalPathology train_densenet_albumentations.py (a jupytext notebook export): module-level
DataLoader(num_workers=8 -> 2 here) iterated by a top-level `for epoch` loop, no main guard (WSP101), and the
segmentation twin with num_workers=0 (safe). Case `guarded` is the fix.
Usage: python d_d3_03_unguarded_loader.py CASE"""
import sys
import torch
from torch.utils.data import DataLoader


class Dataset(object):
    def __init__(self, n):
        self.n = n
    def __getitem__(self, i):
        return torch.tensor([float(i)])
    def __len__(self):
        return self.n


case = sys.argv[1] if len(sys.argv) > 1 else "unguarded"
workers = 0 if case == "workers0" else 2
dataLoader = {p: DataLoader(Dataset(8), batch_size=4, shuffle=True, num_workers=workers) for p in ["train", "val"]}


def run():
    tot = 0.0
    for epoch in range(2):
        for phase in ["train", "val"]:
            for ii, X in enumerate(dataLoader[phase]):
                tot += X.sum().item()
    print("OK", case, tot)


if case in ("unguarded", "workers0"):
    for epoch in range(2):
        for phase in ["train", "val"]:
            for ii, X in enumerate(dataLoader[phase]):
                pass
    print("OK", case)
elif case == "guarded":
    if __name__ == "__main__":
        run()
