"""Mimics datasets_prep/lmdb_datasets.py (and lsun.LSUNClass): lmdb.open in __init__,
plus a lazily-opening twin."""
import os
import lmdb
import numpy as np
import torch
import torch.utils.data as data


def make_lmdb(path, n=8):
    env = lmdb.open(path, map_size=1 << 24)
    with env.begin(write=True) as txn:
        for i in range(n):
            txn.put(str(i).encode(), np.full(12, i, dtype=np.uint8).tobytes())
    env.close()


class LMDBDataset(data.Dataset):
    def __init__(self, root, n=8):
        self.n = n
        self.data_lmdb = lmdb.open(os.path.join(root, 'train.lmdb'), readonly=True, max_readers=8,
                                   lock=False, readahead=False, meminit=False)

    def __getitem__(self, index):
        with self.data_lmdb.begin(write=False) as txn:
            buf = txn.get(str(index).encode())
        return torch.from_numpy(np.frombuffer(buf, dtype=np.uint8).astype(np.float32)), 0

    def __len__(self):
        return self.n


class LazyLMDBDataset(LMDBDataset):
    def __init__(self, root, n=8):
        self.n = n
        self.path = os.path.join(root, 'train.lmdb')
        self.data_lmdb = None

    def __getitem__(self, index):
        if self.data_lmdb is None:   # opened in the worker
            self.data_lmdb = lmdb.open(self.path, readonly=True, lock=False, readahead=False, meminit=False)
        return LMDBDataset.__getitem__(self, index)
