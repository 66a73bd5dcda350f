# mimics points2surf source/points_to_surf_train.py / points_to_surf_eval.py
import random
import numpy as np
import torch
import torch.utils.data
from p2s import data_loader


def seed_worker_module_level(worker_id):
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)
    ds = torch.utils.data.get_worker_info().dataset
    ds.rng.seed(worker_seed)


def points_to_surf_train(workers, local_init=True):
    train_dataset = data_loader.PointcloudPatchDataset()

    def seed_train_worker(worker_id):
        worker_seed = torch.initial_seed() % 2**32
        np.random.seed(worker_seed)
        random.seed(worker_seed)
        train_dataset.rng.seed(worker_seed)
        train_dataset.rng_global_sample.seed(worker_seed)

    train_dataloader = torch.utils.data.DataLoader(
        train_dataset, batch_size=4, num_workers=workers, persistent_workers=True,
        worker_init_fn=seed_train_worker if local_init else seed_worker_module_level)
    n = 0
    for batch in train_dataloader:
        n += batch.shape[0]
    return n


def points_to_surf_eval(workers):
    # like make_dataloader: no worker_init_fn, dataset with its Cache
    dataset = data_loader.PointcloudPatchDataset()
    dataloader = torch.utils.data.DataLoader(dataset, batch_size=4, num_workers=workers)
    return sum(b.shape[0] for b in dataloader)
