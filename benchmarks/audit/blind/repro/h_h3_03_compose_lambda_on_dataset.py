"""Mimics RAVE get_dataset(): transform_list with lambdas -> Compose -> dataset._transforms.
Cases: lambda (hazard, WSP204), random_apply_lambda (hazard, WSP204: lambda inside RandomApply),
module_func (safe twin: module-level functions)."""
import sys
import numpy as np
import torch.utils.data as data
from torch.utils.data import DataLoader


class Compose:
    def __init__(self, ts):
        self.ts = ts

    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x


class RandomApply:
    def __init__(self, t, p):
        self.t, self.p = t, p

    def __call__(self, x):
        return self.t(x) if np.random.rand() < self.p else x


def to_float(x):
    return x.astype(np.float32)


def mangle(x, k):
    return x * k


class AudioDataset(data.Dataset):
    def __init__(self, transforms):
        self._transforms = transforms

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return self._transforms(np.full(16, i, dtype=np.int16))


def get_dataset(case, sr=44100):
    if case == "lambda":
        tl = [lambda x: x.astype(np.float32)]
    elif case == "random_apply_lambda":
        tl = [to_float, RandomApply(lambda x: mangle(x, sr), p=.8)]
    else:
        tl = [to_float, RandomApply(to_float, p=.8)]
    return AudioDataset(Compose(tl))


if __name__ == "__main__":
    loader = DataLoader(get_dataset(sys.argv[1]), 4, True, num_workers=2)
    print("OK batches", sum(1 for _ in loader))
