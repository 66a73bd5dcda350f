"""Mimics deepcad/train_collection.py + data_process.py: a class whose run() builds a DataLoader with the
num_workers it was given and iterates it."""
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class trainset(Dataset):
    def __init__(self, arr):
        self.arr = arr

    def __len__(self):
        return len(self.arr)

    def __getitem__(self, i):
        return torch.from_numpy(self.arr[i])


class training_class:
    def __init__(self, params):
        self.num_workers = 0
        self.datasets_path = ""
        for k, v in params.items():
            setattr(self, k, v)

    def run(self):
        arr = np.load(self.datasets_path)       # train_preprocess: read the whole stack
        loader = DataLoader(trainset(arr), batch_size=2, shuffle=True, num_workers=self.num_workers)
        for epoch in range(1):
            n = sum(1 for _ in loader)
        print("OK trained batches", n)
