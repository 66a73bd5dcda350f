# mimics PaSST esc50/dataset.py: get_roll_func returns a local roll_func; get_training_set wraps it
import functools
import numpy as np
import torch
from torch.utils.data import Dataset as TorchDataset
from audiodatasets import PreprocessDataset


class AudioSetDataset(TorchDataset):
    def __init__(self, n=8):
        self.x = np.random.randn(n, 1, 64).astype("float32")

    def __getitem__(self, i):
        return self.x[i], f"f{i}.wav", i % 2

    def __len__(self):
        return len(self.x)


def get_roll_func(axis=1, shift=None, shift_range=50):
    def roll_func(b):  # local function: the hazard
        x, i, y = b
        x = torch.as_tensor(x)
        sf = shift if shift is not None else int(np.random.randint(-shift_range, shift_range + 1))
        return x.roll(sf, axis), i, y
    return roll_func


def roll_module_level(b, axis=1, shift=None, shift_range=50):
    x, i, y = b
    x = torch.as_tensor(x)
    sf = shift if shift is not None else int(np.random.randint(-shift_range, shift_range + 1))
    return x.roll(sf, axis), i, y


def get_training_set(roll=True, safe=False):
    ds = AudioSetDataset()
    if roll:
        f = functools.partial(roll_module_level, axis=1) if safe else get_roll_func()
        ds = PreprocessDataset(ds, f)
    return ds
