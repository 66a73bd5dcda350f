"""a_02: a Dataset method reads a module global that only the main guard assigns (CenterNet test.py:
PrefetchDataset.__getitem__ reads `opt`, assigned by `opt = opts().parse()` under the guard).

Cases: hazard (the worker reads the global `opt`), safe (the same value read from self.opt)."""
import argparse
import sys

import torch
from torch.utils.data import DataLoader, Dataset


class Prefetch(Dataset):
    def __init__(self, opt, use_self):
        self.opt = opt
        self.use_self = use_self

    def __len__(self):
        return 4

    def __getitem__(self, i):
        scales = self.opt.test_scales if self.use_self else opt.test_scales  # noqa: F821 (global from the guard)
        return torch.tensor([i * s for s in scales])


def prefetch_test(opt, case):
    loader = DataLoader(Prefetch(opt, case == "safe"), batch_size=1, num_workers=1)
    print("sum", sum(b.sum().item() for b in loader))


if __name__ == "__main__":
    opt = argparse.Namespace(test_scales=[1.0, 2.0])
    prefetch_test(opt, sys.argv[1])
