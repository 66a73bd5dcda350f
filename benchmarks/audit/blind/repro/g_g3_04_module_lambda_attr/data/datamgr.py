import torch
from data.dataset import SimpleDataset, identity_fn

class SimpleDataManager:
    def __init__(self, batch_size, fixed=False):
        self.batch_size = batch_size
        self.fixed = fixed
    def get_data_loader(self, n):
        dataset = SimpleDataset(n, identity_fn) if self.fixed else SimpleDataset(n)
        params = dict(batch_size=self.batch_size, shuffle=True, num_workers=2)
        return torch.utils.data.DataLoader(dataset, **params)
