"""Mimics WITT data/datasets.py, zero_shot_cot utils.py, DDPG diffusion.py: the loader is built
in a data module; the worker_init_fn is a function defined inside the builder (hazard) or a
module-level function bound with functools.partial (safe, pytorch-meta-dataset loader.py)."""
import random
from functools import partial

import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader


class TinyDataset(Dataset):
    def __init__(self, n=8):
        self.x = np.arange(n, dtype=np.float32)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return torch.tensor(self.x[i])


def seed_worker_module(worker_id, seed):
    np.random.seed(seed + worker_id)
    random.seed(seed + worker_id)


def get_loader_local(num_workers=2, seed=10):
    def worker_init_fn_seed(worker_id):      # local def: cannot be pickled
        np.random.seed(seed + worker_id)
    return DataLoader(TinyDataset(), batch_size=4, num_workers=num_workers,
                      worker_init_fn=worker_init_fn_seed)


def get_loader_partial(num_workers=2, seed=10):
    return DataLoader(TinyDataset(), batch_size=4, num_workers=num_workers,
                      worker_init_fn=partial(seed_worker_module, seed=seed))
