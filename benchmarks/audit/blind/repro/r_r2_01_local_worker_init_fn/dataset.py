# mimics SSL4MIS code/dataloaders/dataset.py: BaseDataSets opens the h5 slice lazily in __getitem__
import h5py
import numpy as np
import torch
from torch.utils.data import Dataset


class BaseDataSets(Dataset):
    def __init__(self, base_dir, n=8, transform=None):
        self._base_dir = base_dir
        self.sample_list = ["case%d" % i for i in range(n)]
        self.transform = transform

    def __len__(self):
        return len(self.sample_list)

    def __getitem__(self, idx):
        h5f = h5py.File(self._base_dir + "/%s.h5" % self.sample_list[idx], "r")  # lazy: safe
        image, label = h5f["image"][:], h5f["label"][:]
        h5f.close()
        sample = {"image": torch.from_numpy(image), "label": torch.from_numpy(label)}
        if self.transform is not None:
            sample = self.transform(sample)
        return sample


class RandomGenerator(object):
    def __init__(self, output_size):
        self.output_size = output_size

    def __call__(self, sample):
        return sample


def make_data(base_dir, n=8):
    import os
    os.makedirs(base_dir, exist_ok=True)
    for i in range(n):
        with h5py.File(base_dir + "/case%d.h5" % i, "w") as f:
            f["image"] = np.random.rand(4, 4).astype("float32")
            f["label"] = np.zeros((4, 4), dtype="uint8")
