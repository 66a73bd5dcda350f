"""Mimics sharpDARTS cnn/utils.py get_data_transforms: --autoaugment inserts CIFAR10Policy;
random_eraser is a module-level function appended to the transform list (safe look-alike)."""
import numpy as np
import torch
import autoaugment


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


def to_tensor(img):
    return torch.from_numpy(np.asarray(img, dtype=np.float32).copy())


def random_eraser(input_img, p=0.66):
    img = np.asarray(input_img).copy()
    if np.random.rand() < p:
        img[:2, :2] = 0
    return img


def get_data_transforms(autoaug=False, eraser=False):
    train = [] if not autoaug else [autoaugment.CIFAR10Policy()]
    if eraser:
        train.append(random_eraser)
    train.append(to_tensor)
    return Compose(train), Compose([to_tensor])
