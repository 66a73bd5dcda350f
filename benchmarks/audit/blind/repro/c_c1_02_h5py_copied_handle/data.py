"""Mimics SST data.py: ProposalDataset opens h5py files in __init__; DataSplit (sent to the workers)
copies the handles (self.features = dataset.features)."""
import h5py
import numpy as np
import torch
from torch.utils.data import Dataset


def make_file(path):
    with h5py.File(path, "w") as f:
        for i in range(4):
            f.create_dataset("v_%d" % i, data=np.full((3, 2), i, dtype="f4"))


class ProposalDataset(object):
    def __init__(self, path):
        self.path = path
        self.features = h5py.File(path, "r")          # SST data.py:25 (and :28 for labels)
        self.ids = list(range(4))


class DataSplit(Dataset):
    def __init__(self, ids, dataset):
        self.ids = ids
        self.features = dataset.features              # SST data.py:164 copies the handle

    def __getitem__(self, i):
        return torch.from_numpy(self.features["v_%d" % self.ids[i]][...])

    def __len__(self):
        return len(self.ids)


class LazySplit(Dataset):
    """safe twin: keeps the path, opens the file in the worker on first use"""
    def __init__(self, ids, dataset):
        self.ids = ids
        self.path = dataset.path
        self.features = None

    def __getitem__(self, i):
        if self.features is None:
            self.features = h5py.File(self.path, "r")
        return torch.from_numpy(self.features["v_%d" % self.ids[i]][...])

    def __len__(self):
        return len(self.ids)


class SimpleHDF5Dataset:
    """CloserLookFewShot data/feature_loader.py: keeps an h5py handle, used in the parent only"""
    def __init__(self, file_handle):
        self.f = file_handle
        self.all_feats = self.f["v_1"][...]
