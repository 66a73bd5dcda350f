"""m4 shape 01: book/tutorial script with no main guard (code-of-learn kaggle_dog_vs_cat
fix_train.py / feature_train.py / feature_extraction.py).

Cases:
  unguarded       module-level heavy load + module-level loop over DataLoader(num_workers=2)  (WSP101 + WSP103)
  unguarded_call  module-level call of a function that iterates the loader (feature_extraction.py:100)
  guarded         same script with the loop under `if __name__ == "__main__":`; heavy load moved too (safe twin)
  heavy_guarded   loop guarded but the heavy load stays at module level: each worker repeats it (WSP103)
  workers0        unguarded, DataLoader(num_workers=0) (seq2seq-translation/train.py:17: safe)
"""
import os
import sys
import torch
from torch.utils.data import DataLoader, TensorDataset

CASE = sys.argv[1] if len(sys.argv) > 1 else "unguarded"
NW = 0 if CASE == "workers0" else 2


def heavy_load():
    # stands in for models.resnet18(pretrained=True) / h5Dataset reading every feature file
    print(f"HEAVY LOAD in pid {os.getpid()} as {__name__}", flush=True)
    return torch.zeros(64, 3)


def make_loader(data):
    ds = TensorDataset(data, torch.arange(len(data)))
    return DataLoader(ds, batch_size=16, shuffle=True, num_workers=NW)


def create_feature(loader):
    n = 0
    for x, y in loader:
        n += len(y)
    return n


if CASE in ("unguarded", "unguarded_call", "workers0", "heavy_guarded"):
    data = heavy_load()
    loader = make_loader(data)

if CASE in ("unguarded", "workers0"):
    for epoch in range(2):               # <- the top-level statement that starts workers
        total = 0
        for x, y in loader:
            total += len(y)
    print("OK trained", total, flush=True)

if CASE == "unguarded_call":
    print("OK", create_feature(loader), flush=True)

if __name__ == "__main__":
    if CASE == "guarded":
        data = heavy_load()
        loader = make_loader(data)
        print("OK", create_feature(loader), flush=True)
    if CASE == "heavy_guarded":
        print("OK", create_feature(loader), flush=True)
