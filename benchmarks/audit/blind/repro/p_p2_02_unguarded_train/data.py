"""Project data module (like data/CustomDataset.py, cifar/dataset.py): module-level Dataset and a
loader factory with num_workers from a config module / default 1."""
import torch
from torch.utils.data import Dataset, DataLoader

CONFIG = {"NUM_WORKERS": 2, "bs": 4}


class TinyDataset(Dataset):
    def __init__(self, n=8):
        self.x = torch.arange(n, dtype=torch.float32)

    def __getitem__(self, i):
        return self.x[i]

    def __len__(self):
        return len(self.x)


def get_loaders(batch_size, **kwargs):
    num_workers = kwargs.setdefault("num_workers", 1)
    print("building loaders with", num_workers, "workers")
    return (DataLoader(TinyDataset(), batch_size=batch_size, shuffle=True, **kwargs),
            DataLoader(TinyDataset(), batch_size=batch_size, **kwargs))
