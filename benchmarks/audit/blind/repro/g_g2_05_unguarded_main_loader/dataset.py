import numpy as np
import torch
from torch.utils.data import Dataset


class TrainDataSet(Dataset):
    def __init__(self, n):
        self.k = np.random.rand(n, 2, 2).astype(np.float32)   # stands for np.load of the whole k-space

    def __len__(self):
        return len(self.k)

    def __getitem__(self, i):
        return torch.from_numpy(self.k[i])
