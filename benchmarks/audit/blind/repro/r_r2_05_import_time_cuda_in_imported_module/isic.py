# mimics Medical-SAM-Adapter dataset/isic.py: plain lists, images opened in __getitem__ (safe)
import torch
from torch.utils.data import Dataset


class ISIC2016(Dataset):
    def __init__(self, n=8):
        self.name_list = ["img%d.jpg" % i for i in range(n)]

    def __len__(self):
        return len(self.name_list)

    def __getitem__(self, i):
        return torch.zeros(3, 4, 4)
