# Shape: make_lmdb() builds an InfiniteDataLoader (starts its workers in __init__) with
# collate_fn=lambda x: x[0] and num_workers=6 (SSL4EO-S12 ssl4eo_dataset.py:184) -> WSP201.
# Cases: lambda_collate (hazard), module_collate (safe twin), guard_classes_nw0 (safe: transform
# classes defined under the main guard, DataLoader(num_workers=0), ssl4eo_dataset_lmdb.py:247/388).
import sys
import torch
from torch.utils.data import DataLoader, Dataset


class SSL4EO(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return (torch.zeros(2) + i, torch.ones(2), torch.ones(2))


class _RepeatSampler(object):
    def __init__(self, sampler):
        self.sampler = sampler

    def __iter__(self):
        while True:
            yield from iter(self.sampler)


class InfiniteDataLoader(DataLoader):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        object.__setattr__(self, 'batch_sampler', _RepeatSampler(self.batch_sampler))
        self.iterator = super().__iter__()

    def __len__(self):
        return len(self.batch_sampler.sampler)

    def __iter__(self):
        for i in range(len(self)):
            yield next(self.iterator)


def first(x):
    return x[0]


def make_lmdb(dataset, num_workers=2, use_lambda=True):
    collate = (lambda x: x[0]) if use_lambda else first
    loader = InfiniteDataLoader(dataset, num_workers=num_workers, collate_fn=collate)
    n = 0
    for index, (s1, s2a, s2c) in enumerate(loader):
        n += 1
    return n


if __name__ == '__main__':
    case = sys.argv[1]
    if case == "lambda_collate":
        print(make_lmdb(SSL4EO(), use_lambda=True))
    elif case == "module_collate":
        print(make_lmdb(SSL4EO(), use_lambda=False))
    elif case == "guard_classes_nw0":
        class TwoCropsTransform:
            def __call__(self, x):
                return [x, x]

        class Wrapped(Dataset):
            def __init__(self, t):
                self.t = t

            def __len__(self):
                return 4

            def __getitem__(self, i):
                return self.t(torch.zeros(2) + i)
        loader = DataLoader(Wrapped(TwoCropsTransform()), batch_size=2, num_workers=0)
        print(sum(1 for _ in loader))
    print("OK", case)
