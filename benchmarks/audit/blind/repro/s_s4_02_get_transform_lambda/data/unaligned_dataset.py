import torch
from data.base_dataset import BaseDataset, get_transform


class UnalignedDataset(BaseDataset):
    def __init__(self, opt):
        BaseDataset.__init__(self, opt)
        self.transform_A = get_transform(opt)   # built in the parent, kept as an attribute

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return {'A': self.transform_A(torch.ones(3, 4, 4))}
