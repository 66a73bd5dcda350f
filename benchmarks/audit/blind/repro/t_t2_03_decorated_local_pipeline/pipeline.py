# mimics speechbrain.utils.data_pipeline.takes + DynamicItemDataset: the decorator wraps the function in an object
# that keeps it in an attribute; the dataset keeps that object; the DataLoader pickles the dataset.
from torch.utils.data import Dataset


class DynamicItem:
    def __init__(self, takes, func):
        self.takes, self.func = takes, func


def takes(key):
    def deco(func):
        return DynamicItem(key, func)
    return deco


class DynamicItemDataset(Dataset):
    def __init__(self, data):
        self.data, self.items = data, []

    def add_dynamic_item(self, item):
        self.items.append(item)

    def __getitem__(self, i):
        out = {}
        for it in self.items:
            out[it.takes] = it.func(self.data[i])
        return out

    def __len__(self):
        return len(self.data)
