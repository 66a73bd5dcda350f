"""Datasets that open a database in __init__ (rosinality MultiResolutionDataset, clovaai LmdbDataset,
self-critical label h5), a lazy twin, and a helper that wraps them like hierarchical_dataset()."""
import os
import tempfile

import h5py
import lmdb
import numpy as np
from torch.utils.data import ConcatDataset, Dataset, Subset

ROOT = os.path.join(tempfile.gettempdir(), "b03_data")


def make_files():
    os.makedirs(ROOT, exist_ok=True)
    env = lmdb.open(os.path.join(ROOT, "db"), map_size=1 << 20)
    with env.begin(write=True) as txn:
        txn.put(b"length", b"8")
        for i in range(8):
            txn.put(f"{i}".encode(), str(i * i).encode())
    env.close()
    with h5py.File(os.path.join(ROOT, "labels.h5"), "w") as f:
        f["labels"] = np.arange(8)


class LmdbDataset(Dataset):
    def __init__(self, path):
        self.env = lmdb.open(path, readonly=True, lock=False, readahead=False, meminit=False)
        with self.env.begin(write=False) as txn:
            self.length = int(txn.get(b"length"))

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        with self.env.begin(write=False) as txn:
            return float(txn.get(f"{i}".encode()))


class H5Dataset(Dataset):
    def __init__(self, path):
        self.h5_label_file = h5py.File(path, "r")
        self.label = self.h5_label_file["labels"][:]

    def __len__(self):
        return len(self.label)

    def __getitem__(self, i):
        return float(self.label[i])


class LazyLmdbDataset(Dataset):
    def __init__(self, path):
        self.path, self.env = path, None
        env = lmdb.open(path, readonly=True, lock=False)
        with env.begin() as txn:
            self.length = int(txn.get(b"length"))
        env.close()

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        if self.env is None:
            self.env = lmdb.open(self.path, readonly=True, lock=False)
        with self.env.begin() as txn:
            return float(txn.get(f"{i}".encode()))


def hierarchical_dataset(kind):
    path = os.path.join(ROOT, "db")
    if kind == "h5py":
        ds = H5Dataset(os.path.join(ROOT, "labels.h5"))
    elif kind == "lazy":
        ds = LazyLmdbDataset(path)
    else:
        ds = LmdbDataset(path)
    concatenated = ConcatDataset([ds])
    return Subset(concatenated, range(len(concatenated)))
