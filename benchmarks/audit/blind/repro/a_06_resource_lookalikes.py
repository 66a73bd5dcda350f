"""a_06: safe look-alikes of a_05 (all run under spawn with DataLoader(num_workers=1)).

Cases: lmdb_lazy (env opened on first use in the worker, parseq LmdbDataset.env), h5py_closed (a helper
opens the file, reads metadata, closes it and resets the attribute to None, SOFA MixedDataset), mp_lock_dict
(multiprocessing.Lock values, picklable while spawning, ANIMAL-SPOT RandomAddNoise), json_open
(json.load(open(...)) keeps only a dict, VLCStoryGan), lmdb_parent (an lmdb env used by the parent only,
vq-vae-2 extract_code.py)."""
import json
import multiprocessing as mp
import os
import sys
import tempfile

import h5py
import lmdb
import numpy as np
from torch.utils.data import DataLoader, Dataset

TMP = os.path.join(tempfile.gettempdir(), "audit_blind_a06")
H5, LMDB, JS = (os.path.join(TMP, n) for n in ("d.h5", "d.lmdb", "d.json"))


class D(Dataset):
    def __init__(self, case):
        self.case, self._env, self.h = case, None, None
        if case == "h5py_closed":
            self._open()
            self.meta = np.array(self.h["x"])
            self.h.close()
            self.h = None
        elif case == "mp_lock_dict":
            self.locks = {f: mp.Lock() for f in ("a", "b")}
        elif case == "json_open":
            self.parsed = json.load(open(JS))

    def _open(self):
        self.h = h5py.File(H5, "r")

    @property
    def env(self):
        if self._env is None:
            self._env = lmdb.open(LMDB, readonly=True, lock=False)
        return self._env

    def __len__(self):
        return 4

    def __getitem__(self, i):
        if self.case == "lmdb_lazy":
            with self.env.begin() as txn:
                return int(txn.get(b"k"))
        if self.case == "h5py_closed" and self.h is None:
            self._open()
        return i


def main(case):
    os.makedirs(TMP, exist_ok=True)
    with h5py.File(H5, "w") as f:
        f["x"] = np.arange(4)
    json.dump({"k": 1}, open(JS, "w"))
    env = lmdb.open(LMDB, map_size=1 << 20)
    with env.begin(write=True) as txn:
        txn.put(b"k", b"1")
    if case != "lmdb_parent":
        env.close()
    total = sum(b.sum().item() for b in DataLoader(D(case), batch_size=2, num_workers=1))
    if case == "lmdb_parent":                     # the parent keeps using its own env
        with env.begin() as txn:
            total += int(txn.get(b"k"))
    print("sum", total)


if __name__ == "__main__":
    main(sys.argv[1])
