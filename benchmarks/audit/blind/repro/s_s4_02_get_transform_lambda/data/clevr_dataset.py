import torch
from data.base_dataset import BaseDataset


class CLEVRDataset(BaseDataset):
    def _transform(self, img):
        return img * 2

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return {'A': self._transform(torch.ones(3, 4, 4))}
