"""Shape (ContraNovo): an index object opens lmdb.open() in a method called from __init__ and keeps
self.env; a Dataset keeps a list of such indexes; DataLoader(num_workers>0) pickles the dataset.
cases: hazard (env opened eagerly in __init__), safe_lazy (env opened on first __getitem__ in the worker),
       safe_collate (module-level collate_fn, eager env removed)"""
import os, sys, tempfile, pickle
import lmdb
import torch
from torch.utils.data import Dataset, DataLoader


def build_db(path):
    env = lmdb.open(path, subdir=False, map_size=1 << 24)
    with env.begin(write=True) as txn:
        for i in range(8):
            txn.put(str(i).encode(), pickle.dumps([float(i)] * 4))
        txn.put(b"n", b"8")
    env.close()


class DBIndex:
    def __init__(self, path, lazy=False):
        self.path = path
        self.env = None
        if not lazy:
            self._init_db()
        self.n = 8

    def _init_db(self):
        self.env = lmdb.open(self.path, subdir=False, readonly=True, lock=False)

    def __getitem__(self, i):
        if self.env is None:
            self._init_db()
        with self.env.begin() as txn:
            return pickle.loads(txn.get(str(i).encode()))


class DbDataset(Dataset):
    def __init__(self, indexes):
        self._indexs = indexes

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.tensor(self._indexs[0][i])


def prepare_batch(batch):
    return torch.stack(batch)


def run(case):
    d = tempfile.mkdtemp()
    path = os.path.join(d, "spec.mdb")
    build_db(path)
    lazy = case in ("safe_lazy", "safe_collate")
    ds = DbDataset([DBIndex(path, lazy=lazy)])
    dl = DataLoader(ds, batch_size=4, num_workers=2, collate_fn=prepare_batch)
    total = sum(float(b.sum()) for b in dl)
    print("OK", case, total)


if __name__ == "__main__":
    run(sys.argv[1])
