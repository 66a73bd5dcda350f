# Mimics RobustLoc data/dataloaders.py (module-level opt = Options().parse(), read in __getitem__) and the
# VOC/RobotCar datasets that keep transform / target_transform.
import numpy as np
import torch
from torch.utils import data
from options import Options

opt = Options().parse()


class RobotCar(data.Dataset):
    def __init__(self, transform=None, target_transform=None):
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self):
        return 4

    def __getitem__(self, i):
        img = torch.full((opt.cropsize,), float(i))
        target = np.array([i], dtype=np.float64)
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, torch.as_tensor(target)
