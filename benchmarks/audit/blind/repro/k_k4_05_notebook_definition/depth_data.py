# Mimics monocular-depth-estimation-cil src/dataset.py + src/main.py's module-level
# target_transform: definitions in an importable module (the safe twin).
import torch
from torch.utils.data import Dataset


def target_transform(depth):
    return depth.unsqueeze(0)


class DepthDataset(Dataset):
    def __init__(self, n, target_transform=None):
        self.n = n
        self.target_transform = target_transform

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        depth = torch.full((2, 2), float(idx))
        if self.target_transform:
            depth = self.target_transform(depth)
        return depth
