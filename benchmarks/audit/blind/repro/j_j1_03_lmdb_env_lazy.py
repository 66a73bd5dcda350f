"""Shape j_j1_03 (RankSRGAN codes/data/LQGT_dataset.py, LQ_dataset.py): the lmdb env is None in __init__
and opened by _init_lmdb() on the first __getitem__, i.e. inside the DataLoader worker.
Usage: python j_j1_03_lmdb_env_lazy.py CASE
  lazy     env opened in __getitem__ (the repository's code)         -> safe
  eager    twin: env opened in __init__ and kept on self             -> WSP301 hazard under spawn
"""
import os
import sys
import tempfile
import lmdb
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader


def build_db(path):
    env = lmdb.open(path, map_size=1 << 22)
    with env.begin(write=True) as txn:
        for i in range(4):
            txn.put(str(i).encode(), np.full(2, i, dtype=np.float32).tobytes())
    env.close()


class LQGTDataset(Dataset):
    def __init__(self, root, eager):
        self.root = root
        self.GT_env = None
        if eager:
            self.GT_env = lmdb.open(root, readonly=True, lock=False, readahead=False, meminit=False)

    def _init_lmdb(self):
        self.GT_env = lmdb.open(self.root, readonly=True, lock=False, readahead=False, meminit=False)

    def __getitem__(self, i):
        if self.GT_env is None:
            self._init_lmdb()
        with self.GT_env.begin(write=False) as txn:
            buf = txn.get(str(i).encode())
        return torch.from_numpy(np.frombuffer(buf, dtype=np.float32).copy())

    def __len__(self):
        return 4


def main(case):
    root = os.path.join(tempfile.mkdtemp(), "gt.lmdb")
    build_db(root)
    ds = LQGTDataset(root, eager=(case == "eager"))
    loader = DataLoader(ds, batch_size=2, num_workers=2)
    print("OK", case, sum(float(x.sum()) for x in loader))


if __name__ == "__main__":
    main(sys.argv[1])
