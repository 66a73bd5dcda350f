import sys
import torch
identity = lambda x: x            # as CrossDomainFewShot data/dataset.py:10

def identity_fn(x):               # the fix
    return x

class SimpleDataset:
    def __init__(self, n, target_transform=identity):
        self.x = torch.randn(n, 3)
        self.y = list(range(n))
        self.target_transform = target_transform
    def __getitem__(self, i):
        return self.x[i], self.target_transform(self.y[i])
    def __len__(self):
        return len(self.y)
