# importable module standing in for "move the definitions into a .py file" (the fix)
import torch
from torch.utils.data import Dataset


class ModDataset(Dataset):
    def __init__(self, n=8):
        self.data = [torch.full((3,), float(i)) for i in range(n)]

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return self.data[i], i


def mod_collate(batch):
    xs, ys = zip(*batch)
    return torch.stack(xs), torch.tensor(ys)
