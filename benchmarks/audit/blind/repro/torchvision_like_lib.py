"""Stands for an installed library (torchvision): importable in workers."""
import torch
from torch.utils import data

def identity(x):
    return x

class Compose:
    def __init__(self, fs): self.fs = fs
    def __call__(self, x):
        for f in self.fs: x = f(x)
        return x

class TransformedDataset(data.Dataset):
    def __init__(self, x, transform=None): self.x, self.transform = x, transform
    def __len__(self): return len(self.x)
    def __getitem__(self, i):
        v = self.x[i]
        return self.transform(v) if self.transform else v


class ImageFolderLike(data.Dataset):
    """Stands for torchvision.datasets.ImageFolder: keeps the `loader` callable as self.loader."""
    def __init__(self, items, loader):
        self.items, self.loader = items, loader
    def __len__(self): return len(self.items)
    def __getitem__(self, i): return self.loader(self.items[i])
