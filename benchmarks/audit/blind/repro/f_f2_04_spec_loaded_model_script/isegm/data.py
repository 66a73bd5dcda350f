# mimics fbrs isegm/data/base.py ISDataset: keeps image_rescale and input_transform
import random
import torch


class Compose:                       # stand-in for torchvision.transforms.Compose
    def __init__(self, ts):
        self.ts = ts

    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x


class Scale:
    def __init__(self, s):
        self.s = s

    def __call__(self, x):
        return x * self.s


def uniform_scale(image_shape):      # an importable module-level function (safe twin)
    return random.uniform(0.75, 1.25)


class ISDataset(torch.utils.data.Dataset):
    def __init__(self, image_rescale=None, input_transform=None):
        self.image_rescale = image_rescale
        self.input_transform = input_transform

    def __len__(self):
        return 8

    def __getitem__(self, index):
        x = torch.ones(2) * index
        if self.image_rescale is not None:
            x = x * self.image_rescale(x.shape)
        if self.input_transform is not None:
            x = self.input_transform(x)
        return x
