# Mimics BasicSTISR dataset/dataset.py: lmdbDataset_real keeps lmdb.open(...) on self.env in __init__;
# alignCollate_syn builds its augmenters with a local lambda that is called in __init__ and not kept.
import random
import lmdb
import torch
from torch.utils.data import Dataset


class lmdbDataset_real(Dataset):
    def __init__(self, root, lazy=False):
        self.root = root
        self.env = None
        if not lazy:
            self.env = lmdb.open(root, max_readers=1, readonly=True, lock=False, readahead=False, meminit=False)
            with self.env.begin(write=False) as txn:
                self.nSamples = int(txn.get(b"num-samples"))
        else:
            env = lmdb.open(root, readonly=True, lock=False)
            with env.begin(write=False) as txn:
                self.nSamples = int(txn.get(b"num-samples"))
            env.close()

    def __len__(self):
        return self.nSamples

    def __getitem__(self, i):
        if self.env is None:
            self.env = lmdb.open(self.root, readonly=True, lock=False)
        with self.env.begin(write=False) as txn:
            return torch.tensor([int(txn.get(b"label-%d" % i))])


class Sometimes:
    """Stands for imgaug's iaa.Sometimes (a picklable augmenter object)."""
    def __init__(self, p, aug):
        self.p, self.aug = p, aug

    def __call__(self, x):
        return self.aug(x) if random.random() < self.p else x


class Blur:
    def __call__(self, x):
        return x


class alignCollate_syn:
    def __init__(self):
        sometimes = lambda aug: Sometimes(0.2, aug)
        self.aug = [sometimes(a) for a in [Blur(), Blur()]]

    def __call__(self, batch):
        for a in self.aug:
            batch = [a(x) for x in batch]
        return torch.cat(batch)


def build(root, n=6):
    env = lmdb.open(root, map_size=1 << 20)
    with env.begin(write=True) as txn:
        txn.put(b"num-samples", str(n).encode())
        for i in range(n):
            txn.put(b"label-%d" % i, str(i).encode())
    env.close()
