import numpy as np
import h5py
import os
from torch.utils.data import Dataset


class RandomGenerator:
    def __init__(self, output_size):
        self.output_size = output_size

    def __call__(self, sample):
        sample["image"] = sample["image"][: self.output_size, : self.output_size]
        return sample


class Synapse_dataset(Dataset):
    """train split: npz-like arrays; test split: h5py opened lazily in __getitem__ (safe)."""
    def __init__(self, base_dir, split, transform=None):
        self.base_dir = base_dir
        self.split = split
        self.transform = transform
        self.n = 8

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        if self.split == "train":
            image = np.full((6, 6), idx, dtype=np.float32)
        else:
            data = h5py.File(os.path.join(self.base_dir, "vol.h5"), "r")
            image = data["image"][idx]
            data.close()
        sample = {"image": image}
        if self.transform is not None:
            sample = self.transform(sample)
        return sample
