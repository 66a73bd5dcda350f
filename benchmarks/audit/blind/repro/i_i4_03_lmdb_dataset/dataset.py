"""Mimics crnn.pytorch dataset.py:19 and vietocr loader/dataloader.py:57/65: lmdb env (and a read txn) opened
in __init__ and kept on the dataset; safe twin opens lazily in the worker."""
import os
import tempfile
import lmdb
import torch
from torch.utils.data import Dataset


def make_db():
    root = os.path.join(tempfile.mkdtemp(), "db")
    env = lmdb.open(root, map_size=1 << 20)
    with env.begin(write=True) as txn:
        txn.put(b"num-samples", b"4")
        for i in range(1, 5):
            txn.put(b"label-%09d" % i, b"w%d" % i)
    env.close()
    return root


class EnvDataset(Dataset):  # crnn lmdbDataset
    def __init__(self, root):
        self.env = lmdb.open(root, max_readers=1, readonly=True, lock=False, readahead=False, meminit=False)
        with self.env.begin(write=False) as txn:
            self.n = int(txn.get(b"num-samples"))

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        with self.env.begin(write=False) as txn:
            return txn.get(b"label-%09d" % (i + 1)).decode()


class TxnDataset(Dataset):  # vietocr OCRDataset keeps env and txn
    def __init__(self, root, close_env_keep_txn=False):
        self.env = lmdb.open(root, readonly=True, lock=False)
        self.txn = self.env.begin(write=False)
        self.n = int(self.txn.get(b"num-samples"))
        if close_env_keep_txn:
            del self.env  # only the txn is left on the object

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return self.txn.get(b"label-%09d" % (i + 1)).decode()


class LazyDataset(Dataset):  # safe twin: open on first use in each worker
    def __init__(self, root):
        self.root = root
        self.env = None
        env = lmdb.open(root, readonly=True, lock=False)
        with env.begin() as txn:
            self.n = int(txn.get(b"num-samples"))
        env.close()

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.env is None:
            self.env = lmdb.open(self.root, readonly=True, lock=False)
        with self.env.begin() as txn:
            return txn.get(b"label-%09d" % (i + 1)).decode()
