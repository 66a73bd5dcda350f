"""Mimics DeepHistReg dataloaders.py: the dataset keeps the transforms callable; images read per item."""
import numpy as np
import torch
from torch.utils.data import Dataset


def collate_to_list_unsupervised(batch):
    return [b[0] for b in batch], [b[1] for b in batch]


class UnsupervisedLoader(Dataset):
    def __init__(self, n, transforms=None):
        self.n = n
        self.transforms = transforms

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        source = np.full((4, 4), float(idx), dtype=np.float32)   # sitk.ReadImage(...) per item in the repository
        target = source.copy()
        if self.transforms is not None:
            source, target, _ = self.transforms(source, target)
        return torch.from_numpy(source), torch.from_numpy(target)
