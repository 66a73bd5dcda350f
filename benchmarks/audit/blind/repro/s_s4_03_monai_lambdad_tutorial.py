"""Mimics the MONAI GenerativeModels tutorials (jupytext .py / .ipynb pairs): a Compose of
dictionary transforms that includes Lambdad(func=lambda ...), held by a (cache) dataset that a
DataLoader(num_workers=4) pickles; monai is not installed, so Lambdad/Compose/CacheDataset are
small stand-ins that keep the same attributes. Cases:
  lambdad               guarded; Lambdad(func=lambda x: x[0]) on the dataset       -> spawn: pickling error
  named_func            guarded; Lambdad(func=select_channel) module-level function -> ok
  unguarded_first       no main guard; module-level first(train_loader), named func -> spawn: bootstrapping RuntimeError
  zero_workers          guarded; lambda but ThreadDataLoader-like num_workers=0     -> ok
  parent_handler_lambda guarded; lambda only in a parent-side handler               -> ok
"""
import sys
import torch
from torch.utils.data import Dataset, DataLoader


class Lambdad:
    def __init__(self, keys, func):
        self.keys, self.func = keys, func
    def __call__(self, d):
        d = dict(d)
        for k in self.keys:
            d[k] = self.func(d[k])
        return d


class Compose:
    def __init__(self, ts):
        self.transforms = ts
    def __call__(self, d):
        for t in self.transforms:
            d = t(d)
        return d


class CacheDataset(Dataset):
    def __init__(self, data, transform):
        self.data, self.transform = data, transform
    def __len__(self):
        return len(self.data)
    def __getitem__(self, i):
        return self.transform(self.data[i])


class StatsHandler:
    def __init__(self, output_transform):
        self.output_transform = output_transform


def select_channel(x):
    return x[0]


def first(loader):
    for b in loader:
        return b


case = sys.argv[1] if len(sys.argv) > 1 else "lambdad"
data = [{"image": torch.ones(4, 3, 3)} for _ in range(4)]

if case == "unguarded_first":
    train_ds = CacheDataset(data, Compose([Lambdad(["image"], select_channel)]))
    train_loader = DataLoader(train_ds, batch_size=2, num_workers=4)
    check_data = first(train_loader)  # module-level statement starting workers
    print("OK", case, tuple(check_data["image"].shape))

if __name__ == "__main__" and case != "unguarded_first":
    if case == "lambdad":
        tf = Compose([Lambdad(["image"], func=lambda x: x[0])])
    else:
        tf = Compose([Lambdad(["image"], func=select_channel)])
    if case == "zero_workers":
        tf = Compose([Lambdad(["image"], func=lambda x: x[0])])
    nw = 0 if case == "zero_workers" else 4
    train_ds = CacheDataset(data, tf)
    train_loader = DataLoader(train_ds, batch_size=2, num_workers=nw)
    if case == "parent_handler_lambda":
        h = StatsHandler(output_transform=lambda x: None)
    b = first(train_loader)
    print("OK", case, tuple(b["image"].shape))
