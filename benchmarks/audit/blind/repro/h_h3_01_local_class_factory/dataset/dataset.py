"""Mimics ATFM dataset/dataset.py: load_data() returns an instance of a class defined inside it."""
import numpy as np
import torch
import torch.utils.data as data


class Holder:  # safe twin: module-level container
    def __init__(self, x, y):
        self.X_train, self.Y_train = x, y


class Dataset:
    def __init__(self, local):
        self.local = local

    def load_data(self):
        x = np.random.rand(8, 3).astype("float32")
        y = np.random.rand(8, 1).astype("float32")
        if not self.local:
            return Holder(x, y)

        class TempClass:  # hazard: local class
            def __init__(self_2):
                self_2.X_train = x
                self_2.Y_train = y
        return TempClass()


class TorchDataset(data.Dataset):
    def __init__(self, ds):
        self.ds = ds

    def __getitem__(self, i):
        return torch.from_numpy(self.ds.X_train[i]), torch.from_numpy(self.ds.Y_train[i])

    def __len__(self):
        return self.ds.X_train.shape[0]


class DatasetFactory:
    def __init__(self, local):
        self.ds = Dataset(local).load_data()

    def get_train_dataset(self):
        return TorchDataset(self.ds)
