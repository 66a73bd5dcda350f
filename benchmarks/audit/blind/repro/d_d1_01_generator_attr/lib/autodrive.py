# Mimics YOLOP lib/dataset/AutoDriveDataset.py: the base Dataset keeps Path.iterdir() (a generator).
from pathlib import Path
import torch
from torch.utils.data import Dataset


class AutoDriveDataset(Dataset):
    def __init__(self, root, listed=False):
        self.mask_root = Path(root)
        if listed:
            self.mask_list = list(self.mask_root.iterdir())   # safe twin (the fix of YOLOP issue #131)
        else:
            self.mask_list = self.mask_root.iterdir()         # generator kept on self
        self.db = []

    def __len__(self):
        return len(self.db)

    def __getitem__(self, idx):
        return torch.tensor(self.db[idx])
