# stands for a project/library module the notebook imports (libauc.datasets, helper_data.py)
import numpy as np
import torch
from torch.utils.data import Dataset


class ModuleDataset(Dataset):
    def __init__(self, n=8):
        self.x = np.arange(n, dtype=np.float32)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return torch.tensor(self.x[i])


class ChunkSampler(torch.utils.data.Sampler):
    def __init__(self, n, start=0):
        self.n, self.start = n, start

    def __iter__(self):
        return iter(range(self.start, self.start + self.n))

    def __len__(self):
        return self.n
