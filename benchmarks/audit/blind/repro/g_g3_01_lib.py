"""Importable stand-in for a library dataset (torchvision VOCDetection) used by g_g3_01."""
import torch
from torch.utils.data import Dataset

class VOCLike(Dataset):
    def __init__(self, n=8, transform=None, target_transform=None):
        self.x = torch.randn(n, 3)
        self.t = [{"annotation": i} for i in range(n)]
        self.transform, self.target_transform = transform, target_transform
    def __len__(self): return len(self.t)
    def __getitem__(self, i):
        x, t = self.x[i], self.t[i]
        if self.target_transform is not None:
            t = self.target_transform(t)
        return x, t

def zero_target(t):
    return 0
