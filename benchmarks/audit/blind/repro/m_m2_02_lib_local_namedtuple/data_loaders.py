"""Mimics MonoRec data_loader/data_loaders.py + base/base_data_loader.py (num_workers=4 default)."""
from torch.utils.data import DataLoader
from kitti_dataset import KittiOdometryDataset


class KittiOdometryDataloader(DataLoader):
    def __init__(self, mode, batch_size=2, num_workers=4):
        self.dataset_ = KittiOdometryDataset(mode)
        super().__init__(self.dataset_, batch_size=batch_size, shuffle=True, num_workers=num_workers)
