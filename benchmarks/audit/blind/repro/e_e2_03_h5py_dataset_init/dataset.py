# mimics pytorch-vdsr dataset.py: DatasetFromHdf5 opens h5py.File in __init__ and keeps the h5py datasets.
import os, tempfile
import h5py
import numpy as np
import torch
import torch.utils.data as data

PATH = os.path.join(tempfile.gettempdir(), "e_e2_03_train.h5")


def make_data():
    if not os.path.exists(PATH):
        with h5py.File(PATH, "w") as f:
            f["data"] = np.ones((4, 1, 3, 3), dtype=np.float32)
            f["label"] = np.zeros((4, 1, 3, 3), dtype=np.float32)


class DatasetFromHdf5(data.Dataset):          # hazard: handle kept from __init__
    def __init__(self, file_path):
        hf = h5py.File(file_path, "r")
        self.data = hf.get("data")
        self.target = hf.get("label")

    def __getitem__(self, index):
        return torch.from_numpy(self.data[index]).float(), torch.from_numpy(self.target[index]).float()

    def __len__(self):
        return self.data.shape[0]


class LazyHdf5(data.Dataset):                 # safe twin: opened lazily in the worker
    def __init__(self, file_path):
        self.file_path = file_path
        self.hf = None
        with h5py.File(file_path, "r") as f:
            self.n = f["data"].shape[0]

    def __getitem__(self, index):
        if self.hf is None:
            self.hf = h5py.File(self.file_path, "r")
        return torch.from_numpy(self.hf["data"][index]).float(), torch.from_numpy(self.hf["label"][index]).float()

    def __len__(self):
        return self.n


class ReadIntoNumpy(data.Dataset):            # safe twin: read in a with-block, arrays kept (MST-plus-plus hsi_dataset.py:33)
    def __init__(self, file_path):
        with h5py.File(file_path, "r") as f:
            self.data = np.array(f["data"])
            self.target = np.array(f["label"])

    def __getitem__(self, index):
        return torch.from_numpy(self.data[index]), torch.from_numpy(self.target[index])

    def __len__(self):
        return len(self.data)
