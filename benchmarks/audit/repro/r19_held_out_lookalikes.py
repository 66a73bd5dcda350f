"""r19: safe look-alikes met in the held-out repositories (none should fail under spawn).

Case: threadpool_lambda = a lambda given to multiprocessing.pool.ThreadPool.imap (threads: nothing pickled).
Case: staticmethod_collate = collate_fn=Dataset.collate (a staticmethod of a module-level class), num_workers=2.
Case: partial_factory = collate_fn=make_collate(...), a factory returning functools.partial of a module-level
function (not a local def), num_workers=2.
Case: lazy_lock = an IterableDataset whose lock-holding cache is None in __init__ and created in __iter__,
that is in the worker after unpickling, num_workers=2.
Case: eager_lock = the same cache created in __init__ (the hazard twin: cannot pickle '_thread.lock').
"""
import functools
import sys
import threading
from multiprocessing.pool import ThreadPool

import torch
from torch.utils.data import DataLoader, Dataset, IterableDataset


class Squares(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.tensor(i * i)

    @staticmethod
    def collate(batch):
        return torch.stack(batch)


def _collate(batch, scale):
    return torch.stack(batch) * scale


def make_collate(scale):
    return functools.partial(_collate, scale=scale)


class Cache:
    def __init__(self):
        self._lock = threading.Lock()


class Stream(IterableDataset):
    def __init__(self, eager):
        self.cache = Cache() if eager else None

    def __iter__(self):
        if self.cache is None:
            self.cache = Cache()
        return iter(range(4))


def main(case):
    if case == "threadpool_lambda":
        with ThreadPool(2) as pool:
            print(sum(pool.imap(lambda i: i * i, range(8))))
        return
    if case in ("lazy_lock", "eager_lock"):
        loader = DataLoader(Stream(eager=case == "eager_lock"), batch_size=2, num_workers=2)
    else:
        collate = Squares.collate if case == "staticmethod_collate" else make_collate(2)
        loader = DataLoader(Squares(), batch_size=4, num_workers=2, collate_fn=collate)
    print("sum", sum(int(b.sum()) for b in loader))


if __name__ == "__main__":
    main(sys.argv[1])
