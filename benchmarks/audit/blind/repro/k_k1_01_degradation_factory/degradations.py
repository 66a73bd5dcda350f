# mimics PMRF utils/create_degradation.py: a factory returning Compose with lambdas, or a local def
from functools import partial
import torch


class Compose:  # stand-in for torchvision.transforms.Compose (not installed here): keeps the list
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


def add_noise(x, std):
    return x + torch.randn_like(x) * std


def identity_pair(x):
    return x, None


def create_degradation(name):
    if name == "compose_lambda":
        return Compose([partial(add_noise, std=0.05), partial(torch.clip, min=0, max=1),
                        lambda x: (x, None)])
    elif name == "local_def":
        def inpaint(x):
            return add_noise(x * 0.5, 0.1), None
        return inpaint
    elif name == "module_partial":
        return Compose([partial(add_noise, std=0.05), identity_pair])
    raise NotImplementedError(name)
