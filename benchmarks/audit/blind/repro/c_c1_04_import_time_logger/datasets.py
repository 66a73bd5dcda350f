"""Mimics RPMNet src/data_loader/datasets.py ModelNetHdf: keeps self._logger = logging.getLogger(...)."""
import logging
import torch
from torch.utils.data import Dataset


class ModelNetHdf(Dataset):
    def __init__(self, n):
        self._logger = logging.getLogger(self.__class__.__name__)
        self._data = torch.arange(float(n))

    def __getitem__(self, i):
        return self._data[i]

    def __len__(self):
        return len(self._data)
