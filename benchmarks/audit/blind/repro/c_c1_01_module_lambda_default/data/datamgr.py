"""Mimics CloserLookFewShot data/datamgr.py: builds the DataLoader with a fixed worker count."""
import torch
from data.dataset import SimpleDataset


class Double:
    def __call__(self, x):
        return x * 2


class SimpleDataManager:
    def __init__(self, batch_size):
        self.batch_size = batch_size

    def get_data_loader(self, items):
        dataset = SimpleDataset(items, Double())
        return torch.utils.data.DataLoader(dataset, batch_size=self.batch_size, shuffle=False, num_workers=2)
