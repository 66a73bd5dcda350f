import lmdb
import numpy as np
from torch.utils.data import Dataset


class ImageDataset(Dataset):
    """hazard: keeps an lmdb read transaction opened in __init__ (FaceX-Zoo DMUE datasets/bases.py)."""
    def __init__(self, dataset, lmdb_f=None):
        self.dataset = dataset
        self.txn = lmdb.open(lmdb_f, readonly=True).begin(write=False)

    def __len__(self):
        return len(self.dataset)

    def __getitem__(self, index):
        key, label = self.dataset[index]
        return np.frombuffer(self.txn.get(key.encode()), dtype=np.uint8).copy(), label


class LazyImageDataset(Dataset):
    """safe twin: opens the environment lazily in the worker."""
    def __init__(self, dataset, lmdb_f=None):
        self.dataset = dataset
        self.lmdb_f = lmdb_f
        self.txn = None

    def __len__(self):
        return len(self.dataset)

    def __getitem__(self, index):
        if self.txn is None:
            self.txn = lmdb.open(self.lmdb_f, readonly=True, lock=False).begin(write=False)
        key, label = self.dataset[index]
        return np.frombuffer(self.txn.get(key.encode()), dtype=np.uint8).copy(), label


class ListDataset(Dataset):
    """safe look-alike: reads a list file through a local handle, keeps only the list (FaceX-Zoo data_processor)."""
    def __init__(self, train_file):
        self.train_list = []
        train_file_buf = open(train_file)
        line = train_file_buf.readline().strip()
        while line:
            p, l = line.split(" ")
            self.train_list.append((p, int(l)))
            line = train_file_buf.readline().strip()

    def __len__(self):
        return len(self.train_list)

    def __getitem__(self, i):
        return len(self.train_list[i][0]), self.train_list[i][1]
