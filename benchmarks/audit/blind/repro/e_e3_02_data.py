"""Module side of e_e3_02: the same Dataset/transforms in an importable .py file."""
import numpy as np
import torch
from torch.utils.data import Dataset


class CustomDataset(Dataset):
    def __init__(self, records, transforms=None):
        self.records = records
        self.transforms = transforms

    def __len__(self):
        return len(self.records)

    def __getitem__(self, idx):
        rec = np.full((3, 8), float(self.records[idx]), dtype=np.float32)
        ar = np.zeros(8, dtype=np.float32)
        if self.transforms is not None:
            rec, ar = self.transforms(rec, ar)
        return rec, ar, idx


class ToTensor(object):
    def __call__(self, rec, ar):
        return torch.from_numpy(rec), torch.from_numpy(ar)


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, rec, ar):
        for t in self.transforms:
            rec, ar = t(rec, ar)
        return rec, ar
