"""deepslide code/compute_stats.py in miniature: class MyDataset is defined INSIDE compute_stats() (L36)
and an instance goes to DataLoader(num_workers=1) (L106-110); online_mean_and_sd is a local def that only
the parent calls (safe)."""
import torch
from torch.utils.data import DataLoader, Dataset


def compute_stats(n):
    class MyDataset(Dataset):
        def __init__(self, n):
            self.data = list(range(n))

        def __getitem__(self, index):
            return torch.full((3, 2, 2), float(index))

        def __len__(self):
            return len(self.data)

    def online_mean_and_sd(loader):
        xs = torch.cat([d for d in loader])
        return xs.mean(dim=[0, 2, 3]).tolist(), xs.std(dim=[0, 2, 3]).tolist()

    return online_mean_and_sd(loader=DataLoader(dataset=MyDataset(n), batch_size=1, num_workers=1))


class ModuleDataset(Dataset):
    def __init__(self, n):
        self.data = list(range(n))

    def __getitem__(self, index):
        return torch.full((3, 2, 2), float(index))

    def __len__(self):
        return len(self.data)


def compute_stats_module_class(n):
    xs = torch.cat(list(DataLoader(ModuleDataset(n), batch_size=1, num_workers=1)))
    return xs.mean(dim=[0, 2, 3]).tolist(), xs.std(dim=[0, 2, 3]).tolist()
