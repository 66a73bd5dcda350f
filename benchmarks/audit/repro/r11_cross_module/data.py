"""Helper module of r11: builds datasets and loaders for train.py (dinov2 make_dataset /
controlnet make_train_dataset / timm create_loader shapes)."""
import torch
from torch.utils.data import ConcatDataset, DataLoader, Dataset, Subset, random_split


class Points(Dataset):
    def __init__(self, transform=None, target_transform=None):
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self):
        return 8

    def __getitem__(self, i):
        x, y = torch.tensor(float(i)), i
        if self.transform is not None:
            x = self.transform(x)
        if self.target_transform is not None:
            y = self.target_transform(y)
        return x, y


def add_one(x):
    return x + 1


def make_dataset(transform=None, target_transform=None):
    return Points(transform=transform, target_transform=target_transform)


def make_local_transform_dataset(offset):
    def shift(x):
        return x + offset

    return Points(transform=shift)


def make_data_loader(dataset, num_workers):
    train, _ = random_split(ConcatDataset([dataset, Subset(dataset, [0, 1])]), [8, 2])
    return DataLoader(train, batch_size=4, num_workers=num_workers)
