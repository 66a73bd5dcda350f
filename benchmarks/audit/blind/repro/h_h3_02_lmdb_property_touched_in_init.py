"""Mimics RAVE rave/dataset.py AudioDataset/LazyAudioDataset.
Cases: init_touch (hazard, WSP301: __init__ reads self.env so lmdb.open runs in the parent and the
Environment is pickled to workers), lazy (safe twin: __init__ never opens it; workers open in __getitem__)."""
import os
import sys
import tempfile

import lmdb
import numpy as np
import torch.utils.data as data
from torch.utils.data import DataLoader


def build_db(path):
    env = lmdb.open(path, map_size=1 << 22)
    with env.begin(write=True) as txn:
        for i in range(8):
            txn.put(f"{i:08d}".encode(), np.full(16, i, dtype=np.int16).tobytes())
    env.close()


class AudioDataset(data.Dataset):
    @property
    def env(self):
        if self._env is None:
            self._env = lmdb.open(self._db_path, lock=False)
        return self._env

    @property
    def keys(self):
        if self._keys is None:
            with self.env.begin() as txn:
                self._keys = list(txn.cursor().iternext(values=False))
        return self._keys

    def __init__(self, db_path, touch):
        self._db_path = db_path
        self._env = None
        self._keys = None
        if touch:
            with self.env.begin() as txn:  # as RAVE: scans every key in __init__
                for k in self.keys:
                    txn.get(k)

    def __len__(self):
        return 8

    def __getitem__(self, i):
        with self.env.begin() as txn:
            a = np.frombuffer(txn.get(f"{i:08d}".encode()), dtype=np.int16)
        return a.astype(np.float32)


def main(case):
    d = tempfile.mkdtemp()
    path = os.path.join(d, "db")
    build_db(path)
    ds = AudioDataset(path, touch={"init_touch": True, "lazy": False}[case])
    loader = DataLoader(ds, 4, True, drop_last=True, num_workers=2)
    print("OK batches", sum(1 for _ in loader))


if __name__ == "__main__":
    main(sys.argv[1])
