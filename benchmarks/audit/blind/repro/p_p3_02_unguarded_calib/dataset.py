import torch
from torch.utils.data import Dataset


class ImageNetDatasetCHINA(Dataset):
    """Stand-in for brocolli.testing.dataset.ImageNetDatasetCHINA (module-level, picklable)."""
    def __init__(self, root, transform=None, download=False):
        self.root = root
        self.transform = transform

    def __len__(self):
        return 16

    def __getitem__(self, i):
        return torch.full((4,), float(i)), i % 2
