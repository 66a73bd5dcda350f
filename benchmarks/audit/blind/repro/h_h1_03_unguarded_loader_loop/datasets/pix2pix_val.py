import torch
from torch.utils import data

class pix2pix_val(data.Dataset):
    def __init__(self, n=8):
        self.n = n
    def __getitem__(self, i):
        return torch.full((3,), float(i))
    def __len__(self):
        return self.n
