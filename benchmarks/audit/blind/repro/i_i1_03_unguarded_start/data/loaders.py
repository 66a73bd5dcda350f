"""Mimics nerf-from-image data/loaders.py: load_dataset() builds the dataset through a
lambda factory called in the parent (safe) and iterates DataLoader(num_workers=2) to cache
all images in memory."""
import torch
from torch.utils.data import DataLoader, Dataset


class CUBDataset(Dataset):
    def __init__(self, split, img_size):
        self.split, self.img_size = split, img_size

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.full((1,), float(i))


def load_dataset(args):
    dataset_inst = lambda *a, **k: CUBDataset(*a, **k)  # factory lambda, parent only
    dataset = dataset_inst("train", img_size=args["resolution"])
    loader = DataLoader(dataset, batch_size=2, shuffle=False, num_workers=2)
    images = [b for b in loader]
    return torch.cat(images)
