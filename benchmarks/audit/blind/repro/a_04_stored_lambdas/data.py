import torch
from torch.utils.data import Dataset

from tvshim import Compose, Lambda


class Points(Dataset):
    def __init__(self, transform=None, identity_unless=None):
        self.x = torch.arange(8.0)
        self.transform = transform
        if identity_unless is not None:     # ANIMAL-SPOT/lora: the lambda is built in the dataset's __init__
            self.transform = Compose([identity_unless if identity_unless else Lambda(lambda x: x)])

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return self.transform(self.x[i]) if self.transform else self.x[i]


class Pooling(torch.nn.Module):             # a model keeping a lambda; it stays in the parent process
    def __init__(self):
        super().__init__()
        self.pooling = lambda x: torch.mean(x, dim=-1)

    def forward(self, x):
        return self.pooling(x)
