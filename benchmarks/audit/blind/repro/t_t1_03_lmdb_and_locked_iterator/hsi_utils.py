"""classes as in S2TDM utils/ (lmdb_dataset.py, dataset.py, util.py)"""
import os
import sys
import tempfile
import threading
from functools import partial
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader


def make_db():
    import lmdb
    d = tempfile.mkdtemp()
    path = os.path.join(d, "patch.db")
    env = lmdb.open(path, map_size=1 << 24)
    with env.begin(write=True) as txn:
        for i in range(4):
            txn.put("{:08}".format(i).encode("ascii"), np.full((2, 3, 3), i, np.float32).tobytes())
    env.close()
    return path


class LMDBDataset(Dataset):
    def __init__(self, db_path):
        import lmdb
        self.db_path = db_path
        self.env = lmdb.open(db_path, max_readers=1, readonly=True, lock=False, readahead=False, meminit=False)
        with self.env.begin(write=False) as txn:
            self.length = txn.stat()["entries"]

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        with self.env.begin(write=False) as txn:
            return np.frombuffer(txn.get("{:08}".format(i).encode("ascii")), np.float32).reshape(2, 3, 3).copy()


class LazyLMDBDataset(Dataset):
    def __init__(self, db_path):
        import lmdb
        self.db_path = db_path
        env = lmdb.open(db_path, readonly=True, lock=False)
        with env.begin(write=False) as txn:
            self.length = txn.stat()["entries"]
        env.close()
        self.env = None

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        import lmdb
        if self.env is None:
            self.env = lmdb.open(self.db_path, readonly=True, lock=False)
        with self.env.begin(write=False) as txn:
            return np.frombuffer(txn.get("{:08}".format(i).encode("ascii")), np.float32).reshape(2, 3, 3).copy()


class LockedIterator:
    def __init__(self, it):
        self.lock = threading.Lock()
        self.it = it.__iter__()

    def __next__(self):
        with self.lock:
            return next(self.it)


class SequentialSelect:
    def __pos(self, n):
        i = 0
        while True:
            yield i
            i = (i + 1) % n

    def __init__(self, transforms):
        self.transforms = transforms
        self.pos = LockedIterator(self.__pos(len(transforms)))

    def __call__(self, img):
        return self.transforms[next(self.pos)](img)


class RoundRobinSelect:
    """picklable twin: a counter instead of a locked generator"""
    def __init__(self, transforms):
        self.transforms = transforms
        self.i = 0

    def __call__(self, img):
        out = self.transforms[self.i % len(self.transforms)](img)
        self.i += 1
        return out


def identity(x):
    return x


def add_noise(x):
    return x + 0.1


class HSI2Tensor:
    def __init__(self, use_2dconv=False):
        self.use_2dconv = use_2dconv

    def __call__(self, x):
        return torch.from_numpy(np.ascontiguousarray(x))


class ImageTransformDataset(Dataset):
    def __init__(self, dataset, transform, target_transform=None):
        self.dataset = dataset
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self):
        return len(self.dataset)

    def __getitem__(self, idx):
        img = self.dataset[idx]
        target = img.copy()
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target


class Compose:
    def __init__(self, fns):
        self.fns = fns

    def __call__(self, x):
        for f in self.fns:
            x = f(x)
        return x


