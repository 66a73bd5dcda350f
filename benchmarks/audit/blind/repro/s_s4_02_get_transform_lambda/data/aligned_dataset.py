import torch
from data.base_dataset import BaseDataset, get_transform


class AlignedDataset(BaseDataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        params = {'crop_pos': (0, 0), 'flip': False}
        t = get_transform(self.opt, params)      # built inside the worker: never pickled
        return {'A': t(torch.ones(3, 4, 4))}
