"""Mimics ImageCaptioning.pytorch scripts/dump_to_lmdb.py.
cases:
  lambda_collate_func  - folder2lmdb(): DataLoader(ds, num_workers=16 -> 2 here, collate_fn=lambda x: x) (WSP201)
  lambda_collate_guard - same lambda written directly in the `if __name__ == "__main__":` block (WSP201)
  global_args          - collate fixed; FolderLMDB.__getitem__ reads global `args`, bound only under the guard (WSP107):
                         NameError in the worker is swallowed by `except Exception` -> returns None -> the parent's
                         `assert data[0] is not None` fails
  safe                 - module-level collate, module-level loader function on the dataset, extension kept on self
"""
import sys
import numpy as np
from torch.utils import data
from torch.utils.data import DataLoader


def raw_npy_reader(i):
    return np.float32(i)


def identity_collate(x):
    return x


class Folder(data.Dataset):
    def __init__(self, n, loader):
        self.n, self.loader = n, loader

    def __getitem__(self, i):
        return (str(i), self.loader(i))

    def __len__(self):
        return self.n


class FolderLMDB(data.Dataset):
    def __init__(self, n, extension=None):
        self.n, self.extension = n, extension

    def __getitem__(self, i):
        try:
            ext = self.extension if self.extension is not None else args.extension
            return np.float32(i) if ext == ".npy" else None
        except Exception as e:
            print("worker:", type(e).__name__, e, flush=True)
            return None

    def __len__(self):
        return self.n


def folder2lmdb(n):
    dl = DataLoader(Folder(n, raw_npy_reader), num_workers=2, collate_fn=lambda x: x)
    return sum(1 for _ in dl)


class Args:
    extension = ".npy"


if __name__ == "__main__":
    global args
    args = Args()
    case = sys.argv[1]
    if case == "lambda_collate_func":
        print("OK", case, folder2lmdb(4))
    elif case == "lambda_collate_guard":
        dl = DataLoader(FolderLMDB(4, ".npy"), num_workers=2, collate_fn=lambda x: x)
        for d in dl:
            assert d[0] is not None
        print("OK", case)
    elif case == "global_args":
        dl = DataLoader(FolderLMDB(4), num_workers=2, collate_fn=identity_collate)
        for d in dl:
            assert d[0] is not None, "worker returned None"
        print("OK", case)
    elif case == "safe":
        dl = DataLoader(Folder(4, raw_npy_reader), num_workers=2, collate_fn=identity_collate)
        n = sum(1 for _ in dl)
        dl = DataLoader(FolderLMDB(4, ".npy"), num_workers=2, collate_fn=identity_collate)
        for d in dl:
            assert d[0] is not None
        print("OK", case, n)
