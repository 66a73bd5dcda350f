"""Shape of torcheeg/torcheeg examples/examples_seed_domain_adaption.py: a tutorial script with no
main guard builds a dataset whose label_transform is Compose([Select, Lambda(lambda x: x + 1)]),
splits it with copy(dataset) (the copies keep the transform) and, in a top-level loop, hands the
splits to DataLoader(num_workers=4) that a trainer's fit() iterates.
Cases (argv[1]):
  unguarded_lambda  : as in the repository (no guard + lambda)                      -> fails under spawn
  unguarded_named   : module-level function instead of the lambda, still no guard     -> fails (bootstrapping)
  guarded_lambda    : loop under the main guard, lambda kept                          -> fails (lambda pickling)
  guarded_named     : guard + module-level function                                   -> OK (safe twin)
  workers0_lambda   : no guard, lambda, DataLoader default num_workers=0 (examples_seed_ccnn.py) -> OK
  lmdb_io           : guard + named fn, dataset keeps an lmdb IO with __getstate__/__setstate__
                      (torcheeg/io/eeg_signal.py LMDBEEGSignalIO)                      -> OK
"""
import os
import sys
import tempfile
from copy import copy

import lmdb
import torch
from torch.utils.data import Dataset, DataLoader

CASE = sys.argv[1]


class Lambda:
    def __init__(self, lambd):
        self.lambd = lambd

    def __call__(self, x):
        return self.lambd(x)


class Compose:
    def __init__(self, ts):
        self.ts = ts

    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x


class Select:
    def __init__(self, key):
        self.key = key

    def __call__(self, info):
        return info[self.key]


class LMDBIO:
    def __init__(self, path):
        self.path = path
        self._env = lmdb.open(path, map_size=1 << 20, lock=False)

    def __getstate__(self):
        state = self.__dict__.copy()
        del state["_env"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._env = lmdb.open(self.path, map_size=1 << 20, lock=False)


class EEGDataset(Dataset):
    def __init__(self, label_transform, io=None):
        self.label_transform = label_transform
        self.io = io
        self.info = [{"emotion": i % 3 - 1} for i in range(8)]

    def __len__(self):
        return len(self.info)

    def __getitem__(self, i):
        return torch.zeros(4), self.label_transform(self.info[i])


def plus_one(x):
    return x + 1


def split(ds):
    a, b = copy(ds), copy(ds)
    a.info, b.info = ds.info[:4], ds.info[4:]
    yield a, b


def fit(*loaders):  # stands for the trainer's fit(): it iterates the loaders
    for loader in loaders:
        for _ in loader:
            pass


MODULE_LAMBDA = lambda x: x + 1  # a lambda written at the top level of the script, as in the tutorial


def build(named, io=None):
    fn = plus_one if named else MODULE_LAMBDA
    return EEGDataset(Compose([Select("emotion"), Lambda(fn)]), io)


def run(dataset, workers):
    for train_ds, test_ds in split(dataset):
        fit(DataLoader(train_ds, batch_size=2, num_workers=workers),
            DataLoader(test_ds, batch_size=2, num_workers=workers))
    print("OK", CASE)


if CASE == "unguarded_lambda":
    run(build(named=False), 4)
elif CASE == "unguarded_named":
    run(build(named=True), 4)
elif CASE == "workers0_lambda":
    run(build(named=False), 0)

if __name__ == "__main__":
    if CASE == "guarded_lambda":
        run(build(named=False), 4)
    elif CASE == "guarded_named":
        run(build(named=True), 4)
    elif CASE == "lmdb_io":
        d = tempfile.mkdtemp()
        run(build(named=True, io=LMDBIO(os.path.join(d, "db"))), 2)
