import torch
from torch.utils.data import Dataset


class ImportedDataset(Dataset):
    def __init__(self, n=8):
        self.x = torch.arange(n, dtype=torch.float32)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i]


def imported_objective(x):
    return (x - 3.0) ** 2
