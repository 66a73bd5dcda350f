"""Shape: CDA dataloader.get_loaders -- transforms.Compose([lambda ...]) and a list of
bound generators (lambda *a: ...) stored on a Dataset, DataLoader(num_workers=2).
Cases: hazard_compose, hazard_bounds, safe_compose (module-level functions),
safe_batch_sampler_lambda (lambda only on a batch_sampler, which stays in the parent)."""
import sys
from functools import partial
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader, Sampler


class Compose:
    def __init__(self, fns):
        self.fns = fns

    def __call__(self, x):
        for f in self.fns:
            x = f(x)
        return x


def to_array(img):
    return np.array(img)[np.newaxis, ...]


def scale(nd):
    return nd / 255


def to_tensor(nd, dtype=torch.float32):
    return torch.tensor(nd, dtype=dtype)


def zero_bounds(*a, n_class=2):
    return torch.zeros(n_class, 1, 2)


class SliceDataset(Dataset):
    def __init__(self, transforms, bounds_generators):
        self.transforms = transforms
        self.bounds_generators = bounds_generators
        self.data = [np.full((4, 4), i, dtype=np.uint8) for i in range(8)]

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        t = [tr(self.data[i]) for tr in self.transforms]
        b = [f(t[0]) for f in self.bounds_generators]
        return [t[0]] + b


class PatientSampler(Sampler):
    def __init__(self, n, shuffle):
        self.n = n
        self.shuffle_fn = (lambda x: list(reversed(x))) if shuffle else (lambda x: x)

    def __len__(self):
        return 2

    def __iter__(self):
        groups = [list(range(0, self.n // 2)), list(range(self.n // 2, self.n))]
        return iter(self.shuffle_fn(groups))


def get_loaders(case, n_class=2, dtype=torch.float32):
    if case in ("hazard_compose", "hazard_bounds"):
        png_transform = Compose([
            lambda img: np.array(img)[np.newaxis, ...],
            lambda nd: nd / 255,
            lambda nd: torch.tensor(nd, dtype=dtype),
        ])
    else:
        png_transform = Compose([to_array, scale, partial(to_tensor, dtype=dtype)])
    if case == "hazard_bounds":
        png_transform = Compose([to_array, scale, partial(to_tensor, dtype=dtype)])
        bounds = [lambda *a: torch.zeros(n_class, 1, 2)]
    else:
        bounds = [partial(zero_bounds, n_class=n_class)]
    ds = SliceDataset([png_transform], bounds)
    if case == "safe_batch_sampler_lambda":
        return DataLoader(ds, num_workers=2, batch_sampler=PatientSampler(len(ds), shuffle=True))
    return DataLoader(ds, batch_size=4, num_workers=2)


def main(case):
    loader = get_loaders(case)
    n = 0
    for batch in loader:
        n += 1
    print("OK", case, "batches", n)


if __name__ == "__main__":
    main(sys.argv[1])
