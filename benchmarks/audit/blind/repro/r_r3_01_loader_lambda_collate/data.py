# Mimics TTPNet data_loader.py / icml18-jtnn fast_jtnn/datautils.py / GraphMVP dataloader.py /
# bondnet data/dataloader.py / Mole-BERT dataloader.py: the loader is built in a project module.
import torch
from torch.utils.data import Dataset, DataLoader


class MySet(Dataset):
    def __init__(self, n=16):
        self.content = [{"x": float(i)} for i in range(n)]
        # lambda used only in the parent (TTPNet data_loader.py:17): a list is stored, fine
        self.lengths = list(map(lambda x: int(x["x"]), self.content))

    def __getitem__(self, idx):
        return self.content[idx]

    def __len__(self):
        return len(self.content)


def collate_fn(data):
    return torch.tensor([d["x"] for d in data])


def get_loader(num_workers=2):
    # TTPNet get_loader / jtnn MolTreeFolder.__iter__: lambda passed straight to the DataLoader
    return DataLoader(MySet(), batch_size=4, collate_fn=lambda x: collate_fn(x), num_workers=num_workers)


def get_loader_safe(num_workers=2):
    return DataLoader(MySet(), batch_size=4, collate_fn=collate_fn, num_workers=num_workers)


class DataLoaderMasking(DataLoader):
    # GraphMVP / pretrain-gnns style subclass: lambda built in __init__, workers via **kwargs
    def __init__(self, dataset, batch_size=1, shuffle=True, **kwargs):
        super().__init__(dataset, batch_size, shuffle,
                         collate_fn=lambda data_list: collate_fn(data_list), **kwargs)


class DataLoaderLocalDef(DataLoader):
    # bondnet data/dataloader.py: local def collate in __init__
    def __init__(self, dataset, **kwargs):
        def collate(samples):
            return collate_fn(samples)
        super().__init__(dataset, collate_fn=collate, **kwargs)


class DataLoaderBound(DataLoader):
    # Mole-BERT DataLoaderMaskingPred: bound method of the loader itself as collate_fn
    def __init__(self, dataset, batch_size=1, shuffle=True, **kwargs):
        self._scale = 1.0
        super().__init__(dataset, batch_size, shuffle, collate_fn=self.collate_fn, **kwargs)

    def collate_fn(self, batch):
        return collate_fn(batch) * self._scale
