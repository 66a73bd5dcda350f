"""Mimics im2mesh/data/core.py, PSMNet/FlowNet/dsacstar dataset modules."""
import os
import numpy as np
import torch
from torch.utils.data import Dataset
from torch.utils.data.dataloader import default_collate


class T:  # stand-in for torchvision.transforms (not installed): module-level classes
    class Compose:
        def __init__(self, ts):
            self.ts = ts

        def __call__(self, x):
            for t in self.ts:
                x = t(x)
            return x

    class Normalize:
        def __init__(self, mean, std):
            self.mean = torch.tensor(mean).view(-1, 1, 1)
            self.std = torch.tensor(std).view(-1, 1, 1)

        def __call__(self, x):
            return (x - self.mean) / self.std


def default_loader(i):           # module-level loader kept on the dataset (PSMNet, FlowNet KITTI_loader)
    return np.full((3, 4, 4), i, dtype=np.float32)


class PairDataset(Dataset):
    def __init__(self, n=8, loader=default_loader):
        self.n = n
        self.loader = loader
        # Compose of standard transforms (dsacstar/esac image_transform)
        self.transform = T.Compose([T.Normalize(mean=[0.4] * 3, std=[0.25] * 3)])

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == 3:
            return None
        return self.transform(torch.from_numpy(self.loader(i)))


def collate_remove_none(batch):   # a lambda used INSIDE the worker, never pickled
    batch = list(filter(lambda x: x is not None, batch))
    return default_collate(batch)


def worker_init_fn(worker_id):
    np.random.seed(int.from_bytes(os.urandom(4), "big") % 2**31 + worker_id)
