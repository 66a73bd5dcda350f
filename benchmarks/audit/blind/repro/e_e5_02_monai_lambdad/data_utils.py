"""Mimics MONAI tutorials generation/maisi/scripts/utils.py (factory building Lambdad lambdas + DataLoader) and
generation/2d_ldm/utils.py (same lambdas but DataLoader(num_workers=0))."""
import torch
from monai.data import CacheDataset, DataLoader
from monai.transforms import Compose, Lambdad


def as_tensor(x):               # module-level function: the safe twin of `lambda x: torch.FloatTensor(x)`
    return torch.FloatTensor(x)


def prepare_loader(items, use_lambda=True, num_workers=2):
    if use_lambda:
        common = [Lambdad(keys="spacing", func=lambda x: torch.FloatTensor(x)),
                  Lambdad(keys="spacing", func=lambda x: x * 1e2)]
    else:
        common = [Lambdad(keys="spacing", func=as_tensor)]
    ds = CacheDataset(data=items, transform=Compose(common), cache_rate=1.0, num_workers=4)  # threads
    return DataLoader(ds, batch_size=2, shuffle=True, num_workers=num_workers)
