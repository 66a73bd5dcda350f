"""Mimics DDN data.py: a factory that builds a dataset whose transform is a
function defined inside the factory, and returns a DataLoader(num_workers=1)."""
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader


class TinyImageFolder(Dataset):
    def __init__(self, n, transform):
        self.imgs = [np.random.rand(8, 8, 3).astype(np.float32) for _ in range(n)]
        self.transform = transform

    def __len__(self):
        return len(self.imgs)

    def __getitem__(self, i):
        return self.transform(self.imgs[i]), 0


def center_crop_module_level(img, crop=4):
    return torch.from_numpy(img[:crop, :crop].transpose(2, 0, 1).copy())


def CVDB(crop_size=(4, 4), batch_size=1):
    # hazard: local function used as the dataset transform
    def transform_center_crop(img):
        return torch.from_numpy(img[:crop_size[0], :crop_size[1]].transpose(2, 0, 1).copy())

    dataset = TinyImageFolder(4, transform=transform_center_crop)
    return DataLoader(dataset, batch_size=batch_size, shuffle=False, num_workers=1)


def CVDB_safe(batch_size=1):
    dataset = TinyImageFolder(4, transform=center_crop_module_level)
    return DataLoader(dataset, batch_size=batch_size, shuffle=False, num_workers=1)
