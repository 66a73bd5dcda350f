import h5py
import numpy as np
from torch.utils.data import Dataset


class Backed:
    """stand-in for an AnnData read with backed="r": keeps the open h5py File (scanpy is not installed)"""
    def __init__(self, path):
        self.file = h5py.File(path, "r")
        self.X = self.file["X"]
        self.shape = self.X.shape


class AnnDataset(Dataset):
    def __init__(self, filepath):
        super().__init__()
        self.data = Backed(filepath)          # as unifan/datasets.py:25 sc.read(..., backed="r")
        self.N = self.data.shape[0]

    def __len__(self):
        return self.N

    def __getitem__(self, idx):
        return self.data.X[idx].flatten()


class LazyAnnDataset(AnnDataset):
    """safe twin: read the length, close, reopen in the worker on first access"""
    def __init__(self, filepath):
        self.filepath = filepath
        with h5py.File(filepath, "r") as f:
            self.N = f["X"].shape[0]
        self.data = None

    def __getitem__(self, idx):
        if self.data is None:
            self.data = Backed(self.filepath)
        return self.data.X[idx].flatten()


class NumpyDataset(Dataset):
    def __init__(self, filepath):
        super().__init__()
        self.data = np.load(filepath)         # an in-memory array: pickles
        self.N = self.data.shape[0]

    def __len__(self):
        return self.N

    def __getitem__(self, idx):
        return self.data[idx].flatten()
