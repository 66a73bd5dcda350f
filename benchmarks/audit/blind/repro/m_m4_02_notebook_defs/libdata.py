"""stands in for torchvision.datasets.CIFAR10 / MNIST / ImageFolder and stat453 datautils.py."""
import torch
from torch.utils.data import Dataset, DataLoader


class LibDataset(Dataset):
    def __init__(self, n, transform=None):
        self.x = torch.arange(n, dtype=torch.float32)
        self.transform = transform

    def __getitem__(self, i):
        x = self.x[i]
        if self.transform is not None:
            x = self.transform(x)
        return x, int(i) % 10

    def __len__(self):
        return len(self.x)


class Scale(object):
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return x * self.k


def create_loaders(n, transform, num_workers=4):
    return DataLoader(LibDataset(n, transform=transform), batch_size=8, shuffle=True,
                      num_workers=num_workers)
