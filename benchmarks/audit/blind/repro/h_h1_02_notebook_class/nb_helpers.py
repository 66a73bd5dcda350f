import torch
from torch.utils.data import Dataset

class ImageDataset(Dataset):          # the same class, but importable from a module file
    def __init__(self, n=8):
        self.n = n
    def __getitem__(self, i):
        return torch.full((3,), float(i))
    def __len__(self):
        return self.n
