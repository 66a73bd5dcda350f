import numpy as np
import torch
from torch.utils.data import Dataset
from torch.utils.data.sampler import BatchSampler


class TripletMNIST(Dataset):
    """module-level dataset (siamese-triplet datasets.py): pickles by reference."""
    def __init__(self, n=12):
        self.x = torch.arange(n, dtype=torch.float32)
        self.labels = np.arange(n) % 3

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        j = (i + 3) % len(self.x)
        return (self.x[i], self.x[j], self.x[(i + 1) % len(self.x)]), []


class BalancedBatchSampler(BatchSampler):
    """batch sampler: stays in the parent, never pickled to workers."""
    def __init__(self, labels, n):
        self.labels, self.n = labels, n

    def __iter__(self):
        idx = list(range(len(self.labels)))
        for k in range(0, len(idx), self.n):
            yield idx[k:k + self.n]

    def __len__(self):
        return (len(self.labels) + self.n - 1) // self.n
