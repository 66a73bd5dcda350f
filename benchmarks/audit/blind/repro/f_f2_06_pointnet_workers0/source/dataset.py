import torch
from torch.utils.data import Dataset
from source import utils


class PointCloudData(Dataset):
    def __init__(self, n, transform=None):
        self.files = list(range(n))
        self.transforms = transform

    def __len__(self):
        return len(self.files)

    def __getitem__(self, idx):
        mesh = [[idx, 0, 0], [0, idx, 0], [0, 0, idx]]
        return {'pointcloud': self.transforms(mesh), 'category': idx % 2}
