# mimics planet_sentinel_multimodality datasets/sentinel2_dataloader.py:
# h5py.File opened in Dataset.__init__ (hazard) vs lazily in __getitem__ (safe, as LandslidePrediction loader.py)
import random
import h5py
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader


class EagerH5Dataset(Dataset):
    def __init__(self, file_path):
        self.file_path = file_path
        self.dataset = h5py.File(file_path, "r")   # hazard: handle stored on the dataset

    def __len__(self):
        return len(self.dataset["time_series"])

    def __getitem__(self, idx):
        return self.dataset["time_series"][idx].astype(np.float32), int(self.dataset["crop_labels"][idx])


class LazyH5Dataset(Dataset):
    def __init__(self, file_path):
        self.file_path = file_path
        with h5py.File(file_path, "r") as f:
            self.n = len(f["time_series"])

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        with h5py.File(self.file_path, "r") as f:   # safe: opened in the worker
            return f["time_series"][idx].astype(np.float32), int(f["crop_labels"][idx])


def seed_worker(worker_id):   # module-level worker_init_fn: picklable
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


def make_loader(dataset, batch_size, num_workers):
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=num_workers,
                      worker_init_fn=seed_worker)
