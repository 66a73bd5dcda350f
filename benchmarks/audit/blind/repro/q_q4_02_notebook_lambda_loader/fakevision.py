# stand-in for torchvision.datasets.DatasetFolder (torchvision is not installed): keeps `loader` as an attribute
import os
import torch
from torch.utils.data import Dataset


class DatasetFolder(Dataset):
    def __init__(self, root, loader, extensions=None, transform=None):
        self.loader = loader
        self.transform = transform
        self.samples = [(os.path.join(root, f), int(f.split("_")[0])) for f in sorted(os.listdir(root))]

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        path, target = self.samples[i]
        x = self.loader(path)
        if self.transform is not None:
            x = self.transform(x)
        return x, target


def open_image(path):  # an importable loader: pickles by reference
    with open(path, "rb") as f:
        return torch.tensor(list(f.read()[:4]), dtype=torch.float32)
