"""Mimics CloserLookFewShot data/dataset.py: a module-level `identity = lambda x: x` used as the default
target_transform, kept in an attribute of the Dataset that the DataLoader workers receive."""
import os
import torch

if os.environ.get("C1_IDENTITY") == "def":
    def identity(x):          # safe twin: a module-level def pickles by reference
        return x
else:
    identity = lambda x: x    # hazard: pickled as data.dataset.<lambda> -> lookup fails


class SimpleDataset:
    def __init__(self, items, transform, target_transform=identity):
        self.items = items
        self.transform = transform
        self.target_transform = target_transform

    def __getitem__(self, i):
        return self.transform(self.items[i]), self.target_transform(i % 2)

    def __len__(self):
        return len(self.items)
