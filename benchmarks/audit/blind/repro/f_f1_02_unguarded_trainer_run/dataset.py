import torch
from torch.utils.data import DataLoader, Dataset


class TextDataset(Dataset):
    def __init__(self, lines):
        self.lines = lines

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i):
        return torch.tensor([ord(c) for c in self.lines[i][:4]])


def collate_fn(batch):
    return torch.stack(batch)


def load_iterators(lines):
    params = {"batch_size": 2, "shuffle": True, "num_workers": 2}   # Arabic_Diacritization dataset.py
    return DataLoader(TextDataset(lines), collate_fn=collate_fn, **params)
