"""load_data(opt) returns a dict of DataLoaders whose worker_init_fn is a lambda when a seed is given (ganomaly)."""
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset


def load_data(opt):
    splits = ["train", "test"]
    dataset = {x: TensorDataset(torch.arange(8.0)) for x in splits}
    dataloader = {x: DataLoader(dataset=dataset[x],
                                batch_size=4,
                                shuffle=x == "train",
                                num_workers=int(opt.workers),
                                worker_init_fn=(None if opt.manualseed == -1
                                                else lambda x: np.random.seed(opt.manualseed)))
                  for x in splits}
    return dataloader
