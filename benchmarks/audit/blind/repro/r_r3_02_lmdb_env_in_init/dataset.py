# Mimics pytorch-fm torchfm/dataset/criteo.py / avazu.py (lmdb env opened in __init__) and movielens.py (numpy arrays)
import struct, os, tempfile
import lmdb
import numpy as np
import torch.utils.data


def build_cache(path, n=32):
    with lmdb.open(path, map_size=1 << 24) as env:
        with env.begin(write=True) as txn:
            txn.put(b"field_dims", np.array([5, 5], dtype=np.uint32).tobytes())
            for i in range(n):
                txn.put(struct.pack(">I", i), np.array([i % 2, i % 5, i % 3], dtype=np.uint32).tobytes())


class CriteoLikeDataset(torch.utils.data.Dataset):
    def __init__(self, cache_path):
        self.env = lmdb.open(cache_path, create=False, lock=False, readonly=True)   # the hazard line
        with self.env.begin(write=False) as txn:
            self.length = txn.stat()["entries"] - 1

    def __getitem__(self, index):
        with self.env.begin(write=False) as txn:
            a = np.frombuffer(txn.get(struct.pack(">I", index)), dtype=np.uint32).astype(np.int64)
        return a[1:], a[0]

    def __len__(self):
        return self.length


class LazyDataset(CriteoLikeDataset):
    def __init__(self, cache_path):
        self.cache_path = cache_path
        env = lmdb.open(cache_path, create=False, lock=False, readonly=True)
        with env.begin(write=False) as txn:
            self.length = txn.stat()["entries"] - 1
        env.close()
        self.env = None

    def __getitem__(self, index):
        if self.env is None:
            self.env = lmdb.open(self.cache_path, create=False, lock=False, readonly=True)
        return super().__getitem__(index)


class MovieLensLike(torch.utils.data.Dataset):
    def __init__(self, n=32):
        data = np.stack([np.arange(n) % 7, np.arange(n) % 5, np.arange(n) % 2], 1)
        self.items = data[:, :2].astype(np.int64)
        self.targets = data[:, 2].astype(np.float32)

    def __len__(self):
        return self.targets.shape[0]

    def __getitem__(self, index):
        return self.items[index], self.targets[index]
