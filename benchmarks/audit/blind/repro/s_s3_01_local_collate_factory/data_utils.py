"""Mimics REGNet utils.get_dataloader and learnable-triangulation mvn/datasets/utils.make_collate_fn:
a helper module whose function defines the collate_fn / worker_init_fn locally."""
import numpy as np
import torch
import torch.utils.data


class PointDataset(torch.utils.data.Dataset):
    def __init__(self, n=8):
        self.pcs = [np.random.rand(16, 3).astype(np.float32) for _ in range(n)]

    def __len__(self):
        return len(self.pcs)

    def __getitem__(self, i):
        return torch.from_numpy(self.pcs[i]), i


def module_collate(batch):
    batch = list(filter(lambda x: x[0] is not None, batch))
    return torch.utils.data.dataloader.default_collate(batch)


def module_worker_init_fn(worker_id):
    np.random.seed(torch.initial_seed() % (2 ** 31 - 1))


def get_dataloader(dataset, batchsize, num_workers=2, local_collate=True, local_init=True):
    # REGNet utils.py:41-56 shape
    def my_worker_init_fn(pid):
        np.random.seed(torch.initial_seed() % (2 ** 31 - 1))

    def my_collate(batch):
        batch = list(filter(lambda x: x[0] is not None, batch))
        return torch.utils.data.dataloader.default_collate(batch)

    return torch.utils.data.DataLoader(
        dataset, batch_size=batchsize, num_workers=num_workers, shuffle=True,
        worker_init_fn=my_worker_init_fn if local_init else module_worker_init_fn,
        collate_fn=my_collate if local_collate else module_collate)


def make_collate_fn(randomize_n_views=True):
    # learnable-triangulation mvn/datasets/utils.py:6-39 shape
    def collate_fn(items):
        items = list(filter(lambda x: x is not None, items))
        return torch.utils.data.dataloader.default_collate(items)
    return collate_fn


class CollateFn:
    """safe twin of make_collate_fn: a module-level callable class"""
    def __init__(self, randomize_n_views=True):
        self.randomize_n_views = randomize_n_views

    def __call__(self, items):
        items = [x for x in items if x is not None]
        return torch.utils.data.dataloader.default_collate(items)
