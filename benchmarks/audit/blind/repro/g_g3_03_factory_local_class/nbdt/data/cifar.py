import torch
from torch.utils.data import Dataset
__all__ = names = ("CIFAR10",)

class CIFAR10(Dataset):
    """stands for the torchvision CIFAR10 subclass in nbdt/data/cifar.py"""
    classes = [str(i) for i in range(4)]
    def __init__(self, root="./data", train=True, download=False, transform=None):
        g = torch.Generator().manual_seed(0 if train else 1)
        self.x = torch.randn(16, 3, 4, 4, generator=g)
        self.y = torch.arange(16) % 4
    def __len__(self): return len(self.y)
    def __getitem__(self, i): return self.x[i], self.y[i]
