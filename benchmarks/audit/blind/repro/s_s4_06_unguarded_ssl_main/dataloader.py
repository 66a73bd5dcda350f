"""Mimics dataloader.py initialize_dataloader(): builds (downloads) the datasets and
DataLoaders(num_workers=4)."""
import os
import torch
from torch.utils.data import Dataset, DataLoader


class TrainDatasetTransformsCIFAR10(Dataset):
    def __init__(self):
        print("BUILD dataset in pid", os.getpid(), flush=True)  # stands for CIFAR10(download=True)
        self.data = torch.rand(8, 3, 4, 4)
        self.self_supervised_augmentations = None

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        img = self.data[i]
        if self.self_supervised_augmentations:
            img = self.self_supervised_augmentations(img, i % 2)
        return img, i % 2

    def update_self_supervised_augmentations(self, aug):
        self.self_supervised_augmentations = aug


def initialize_dataloader(batch_size):
    ds = TrainDatasetTransformsCIFAR10()
    return DataLoader(ds, batch_size=batch_size, shuffle=True, num_workers=4, drop_last=True), ds
