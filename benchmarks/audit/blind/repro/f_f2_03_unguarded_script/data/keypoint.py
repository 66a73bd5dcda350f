import torch
import torch.utils.data as data
from data.base_dataset import get_transform


class KeyDataset(data.Dataset):
    def initialize(self, opt):
        self.opt = opt
        self.transform = get_transform(opt)
        self.size = 6

    def __getitem__(self, index):
        return self.transform(torch.full((1, 2, 2), float(index)))

    def __len__(self):
        return self.size
