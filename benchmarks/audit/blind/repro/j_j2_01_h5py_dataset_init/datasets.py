# mimics Image-Caption/datasets.py: CaptionDataset opens h5py.File in __init__
import os
import h5py
import torch
from torch.utils.data import Dataset


class CaptionDataset(Dataset):
    def __init__(self, path):
        self.h = h5py.File(path, 'r')          # hazard: stored open h5py handle
        self.imgs = self.h['images']

    def __getitem__(self, i):
        return torch.FloatTensor(self.imgs[i] / 255.)

    def __len__(self):
        return self.imgs.shape[0]


class LazyCaptionDataset(Dataset):
    def __init__(self, path):
        self.path = path
        self.h = None
        with h5py.File(path, 'r') as h:
            self.n = h['images'].shape[0]

    def __getitem__(self, i):
        if self.h is None:
            self.h = h5py.File(self.path, 'r')
        return torch.FloatTensor(self.h['images'][i] / 255.)

    def __len__(self):
        return self.n


def make_file(path):
    import numpy as np
    with h5py.File(path, 'w') as h:
        h.create_dataset('images', data=np.random.randint(0, 255, (8, 3, 4, 4)).astype('uint8'))
