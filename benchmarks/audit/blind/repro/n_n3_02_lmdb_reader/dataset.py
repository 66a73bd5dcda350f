import lmdb, numpy as np
from torch.utils import data


class LMDBReader(object):
    def __init__(self, path, lazy=False):
        self.path = path
        self.env = None if lazy else lmdb.open(path, readonly=True, lock=False)   # SOREL dataset.py:26

    def __call__(self, key):
        if self.env is None:
            self.env = lmdb.open(self.path, readonly=True, lock=False)
        with self.env.begin() as txn:
            x = txn.get(key.encode("ascii"))
        return np.frombuffer(x, dtype=np.float32).copy()


class Dataset(data.Dataset):
    def __init__(self, path, keys, lazy=False):
        self.features_lmdb_reader = LMDBReader(path, lazy=lazy)
        self.keylist = list(map(lambda k: k, keys))     # lambda consumed in the parent: safe
    def __len__(self):
        return len(self.keylist)
    def __getitem__(self, i):
        return self.features_lmdb_reader(self.keylist[i])
