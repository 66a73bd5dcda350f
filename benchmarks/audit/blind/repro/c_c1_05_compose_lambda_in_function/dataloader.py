"""Mimics mrnet dataloader.py MRDataset: ids padded with a lambda in __init__ (parent), transform kept;
train=False drops the transform."""
import torch
import torch.utils.data as data


class MRDataset(data.Dataset):
    def __init__(self, n, train=True, transform=None):
        if not train:
            transform = None
        ids = list(map(lambda i: "0" * (4 - len(str(i))) + str(i), range(n)))   # dataloader.py:31
        self.paths = ids
        self.transform = transform

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, index):
        array = torch.full((2,), float(int(self.paths[index])))
        if self.transform:
            array = self.transform(array)
        return array
