"""q2 shape 05: a dataset keeps an lmdb Environment opened in __init__ (outlier-exposure utils/lsun_loader.py:19,
LSUN -> LSUNClass, iterated by CIFAR/test.py through DataLoader(num_workers=4)); safe twins: lazy open in the
worker, and arrays loaded in __init__ (utils/svhn_loader.py:52).
cases: hazard, safe_lazy, safe_arrays (loaders iterated under the main guard, num_workers=2)."""
import io
import os
import sys
import tempfile
import lmdb
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader

DB = os.path.join(tempfile.gettempdir(), "q_q2_05_test_lmdb")


def make_db():
    env = lmdb.open(DB, map_size=1 << 22)
    with env.begin(write=True) as txn:
        for i in range(16):
            buf = io.BytesIO(); np.save(buf, np.full((2, 2), i, dtype=np.float32))
            txn.put(b"%03d" % i, buf.getvalue())
    env.close()


class LSUNClass(Dataset):
    def __init__(self, db_path, lazy=False):
        self.db_path = db_path
        self.env = None
        env = lmdb.open(db_path, readonly=True, lock=False, readahead=False, meminit=False)
        with env.begin(write=False) as txn:
            self.keys = [k for k, _ in txn.cursor()]
        if lazy:
            env.close()
        else:
            self.env = env           # kept: cannot be pickled

    def __getitem__(self, i):
        if self.env is None:
            self.env = lmdb.open(self.db_path, readonly=True, lock=False, readahead=False, meminit=False)
        with self.env.begin(write=False) as txn:
            return torch.from_numpy(np.load(io.BytesIO(txn.get(self.keys[i])))), 0

    def __len__(self):
        return len(self.keys)


class LSUN(Dataset):                  # wrapper holding a list of LSUNClass dbs
    def __init__(self, db_path, lazy=False):
        self.dbs = [LSUNClass(db_path, lazy)]

    def __getitem__(self, i):
        return self.dbs[0][i]

    def __len__(self):
        return len(self.dbs[0])


class ArraysDataset(Dataset):         # svhn_loader: loadmat -> arrays kept, no handle
    def __init__(self, path):
        self.data = np.load(path)

    def __getitem__(self, i):
        return torch.from_numpy(self.data[i]), 0

    def __len__(self):
        return len(self.data)


if __name__ == "__main__":
    case = sys.argv[1] if len(sys.argv) > 1 else "hazard"
    make_db()
    if case == "safe_arrays":
        p = os.path.join(tempfile.gettempdir(), "q_q2_05_arr.npy")
        np.save(p, np.zeros((16, 2, 2), np.float32))
        ds = ArraysDataset(p)
    else:
        ds = LSUN(DB, lazy=(case == "safe_lazy"))
    n = sum(1 for _ in DataLoader(ds, batch_size=4, shuffle=True, num_workers=2))
    print("OK batches", n)
