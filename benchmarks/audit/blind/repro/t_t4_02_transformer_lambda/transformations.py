import torch


class Transformer:
    def __init__(self, key, transform_fn):
        self.key = key
        self.transform_fn = transform_fn

    def __call__(self, datum):
        datum[self.key] = self.transform_fn(datum[self.key])
        return datum


def to_torch(scale_factor=255.0):
    return lambda x: torch.as_tensor(x, dtype=torch.float32) / scale_factor


class Scale:
    def __init__(self, s):
        self.s = s

    def __call__(self, x):
        return x * self.s


def normalize(s=2.0):
    return Scale(s)


def to_torch_fn(x):
    return torch.as_tensor(x, dtype=torch.float32) / 255.0


class Compose:  # stands in for torchvision.transforms.Compose (a module-level class)
    def __init__(self, tfms):
        self.tfms = tfms

    def __call__(self, x):
        for t in self.tfms:
            x = t(x)
        return x
