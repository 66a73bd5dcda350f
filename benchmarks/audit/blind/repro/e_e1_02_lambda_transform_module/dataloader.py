"""Mimics deepvecfont dataloader.py / dataloader_sr.py: get_loader() wraps a lambda in
torchvision-like Lambda + Compose, the dataset keeps it (self.trans), num_workers=batch_size."""
import torch
import torch.utils.data as data


class Lambda:                       # same shape as torchvision.transforms.Lambda
    def __init__(self, fn):
        self.lambd = fn

    def __call__(self, x):
        return self.lambd(x)


class Compose:
    def __init__(self, ts):
        self.transforms = ts

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


def set_range(x):
    return 1. - x


class SVGDataset(data.Dataset):
    def __init__(self, transform, n=8):
        self.trans = transform
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return self.trans(torch.full((2,), float(i)))


def get_loader(batch_size, case):
    if case == "lambda":
        SetRange = Lambda(lambda X: 1. - X)
    else:
        SetRange = Lambda(set_range)
    transform = Compose([SetRange])
    dataset = SVGDataset(transform)
    return data.DataLoader(dataset, batch_size, shuffle=True, num_workers=batch_size, drop_last=True)
