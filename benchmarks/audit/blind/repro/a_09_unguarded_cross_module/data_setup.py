"""Loader helper whose default worker count is module-level (going_modular data_setup.py:
NUM_WORKERS = os.cpu_count(); 2 here)."""
import torch
from torch.utils.data import DataLoader, TensorDataset

NUM_WORKERS = 2


def create_dataloaders(batch_size, num_workers=NUM_WORKERS):
    train = DataLoader(TensorDataset(torch.arange(8.0)), batch_size=batch_size, num_workers=num_workers)
    test = DataLoader(TensorDataset(torch.arange(4.0)), batch_size=batch_size, num_workers=num_workers)
    return train, test, ["a", "b"]
