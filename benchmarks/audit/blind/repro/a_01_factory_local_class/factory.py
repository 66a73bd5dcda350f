"""A helper module whose factories return classes defined inside a function (CenterNet get_dataset,
Low-rank-Multimodal-Fusion load_mosi), next to a module-level class for the safe twin."""
import torch
from torch.utils.data import Dataset


class Base(Dataset):
    def __init__(self, n):
        self.x = torch.arange(float(n))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i]


def get_dataset(kind):
    class Dataset(Base):          # combined class built per call (CenterNet shape)
        kind_name = kind
    return Dataset


def load_split(n):
    class Split(Dataset):          # local class instances returned in a tuple (LMF shape)
        def __init__(self, data):
            self.data = data

        def __len__(self):
            return len(self.data)

        def __getitem__(self, i):
            return self.data[i]
    return Split(torch.arange(float(n))), Split(torch.arange(float(n)))
