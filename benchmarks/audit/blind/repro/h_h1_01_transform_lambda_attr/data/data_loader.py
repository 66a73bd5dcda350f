import torch
from .base_dataset import BaseDataset

def create_dataloader(opt):
    ds = BaseDataset(); ds.initialize(opt)
    return torch.utils.data.DataLoader(ds, batch_size=4, num_workers=opt.n_threads)
