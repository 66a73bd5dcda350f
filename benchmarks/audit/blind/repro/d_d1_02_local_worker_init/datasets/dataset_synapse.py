# Mimics TransUNet datasets/dataset_synapse.py: list file read with open().readlines() (file not kept),
# h5py.File opened inside __getitem__ (lazily, in the worker).
import os
import h5py
import numpy as np
import torch
from torch.utils.data import Dataset


class Synapse_dataset(Dataset):
    def __init__(self, base_dir, list_dir, split):
        self.split = split
        self.sample_list = open(os.path.join(list_dir, split + ".txt")).readlines()
        self.data_dir = base_dir

    def __len__(self):
        return len(self.sample_list)

    def __getitem__(self, idx):
        name = self.sample_list[idx].strip("\n")
        if self.split == "train":
            data = np.load(os.path.join(self.data_dir, name + ".npz"))
            image = data["image"]
        else:
            data = h5py.File(os.path.join(self.data_dir, name + ".npy.h5"), "r")
            image = data["image"][:]
        return torch.as_tensor(image)


def build(tmp):
    with open(os.path.join(tmp, "train.txt"), "w") as f:
        f.write("".join(f"case{i}\n" for i in range(4)))
    with open(os.path.join(tmp, "test_vol.txt"), "w") as f:
        f.write("".join(f"case{i}\n" for i in range(4)))
    for i in range(4):
        np.savez(os.path.join(tmp, f"case{i}.npz"), image=np.full(3, i))
        with h5py.File(os.path.join(tmp, f"case{i}.npy.h5"), "w") as h:
            h["image"] = np.full(3, i)
