# mimics MST-plus-plus train_code/hsi_dataset.py: __init__ reads every .mat (HDF5) file with h5py inside a
# `with` block and keeps numpy arrays (picklable: the safe part), but it is expensive.
import os, tempfile
import h5py
import numpy as np
import torch
from torch.utils.data import Dataset

ROOT = os.path.join(tempfile.gettempdir(), "e_e2_02_data")


def make_data():
    os.makedirs(ROOT, exist_ok=True)
    for i in range(3):
        p = os.path.join(ROOT, f"{i}.mat")
        if not os.path.exists(p):
            with h5py.File(p, "w") as f:
                f["cube"] = np.full((4, 4), float(i), dtype=np.float32)


class TrainDataset(Dataset):
    def __init__(self, data_root):
        print("LOADING dataset (h5py read of every file)", flush=True)
        self.hypers = []
        for name in sorted(os.listdir(data_root)):
            with h5py.File(os.path.join(data_root, name), "r") as mat:
                self.hypers.append(np.array(mat["cube"]))

    def __len__(self):
        return len(self.hypers)

    def __getitem__(self, i):
        return torch.from_numpy(self.hypers[i])
