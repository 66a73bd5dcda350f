"""Loader factories: a Lambda(lambda) random crop inside Compose given to the dataset (stargan-v2
get_train_loader), a lambda target_transform (deeplearning-models get_smile), and a named-function twin."""
import random

import torch
from torch.utils import data

from .tvshim import Compose, Lambda


class ImageFolder(data.Dataset):
    def __init__(self, n, transform=None, target_transform=None):
        self.n, self.transform, self.target_transform = n, transform, target_transform
        self.targets = [i % 2 for i in range(n)]

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        x, y = torch.full((2,), float(i)), torch.tensor([i, i % 2])
        if self.transform is not None:
            x = self.transform(x)
        if self.target_transform is not None:
            y = self.target_transform(y)
        return x, y


def crop(x):
    return x[:1].repeat(2)


def get_train_loader(kind, prob=0.5, num_workers=2):
    if kind == "lambda_crop":
        rand_crop = Lambda(lambda x: crop(x) if random.random() < prob else x)
        dataset = ImageFolder(8, Compose([rand_crop, torch.neg]))
    elif kind == "target_lambda":
        get_smile = lambda attr: attr[1]  # noqa: E731
        dataset = ImageFolder(8, Compose([torch.neg]), target_transform=get_smile)
    else:
        dataset = ImageFolder(8, Compose([Lambda(crop), torch.neg]))
    return data.DataLoader(dataset=dataset, batch_size=4, shuffle=True, num_workers=num_workers, drop_last=True)
