"""Mimics src/systems.py: the data module builds EpicVideoDataset(gulp_dir) with no sample_transform
(_get_video_dataset) and wraps it in TsnDataset for DataLoader(num_workers=cfg.data.worker_count=8)."""
import torch
from torch.utils.data import DataLoader
from epic_dataset import EpicVideoDataset, identity
from tsn_dataset import TsnDataset


class DataModule(object):
    def __init__(self, worker_count=2, give_transform=False):
        self.worker_count = worker_count
        self.give_transform = give_transform

    def _get_video_dataset(self):
        if self.give_transform:
            return EpicVideoDataset(sample_transform=identity)
        return EpicVideoDataset()

    def train_dataloader(self):
        return DataLoader(TsnDataset(self._get_video_dataset()), batch_size=2, shuffle=True,
                          num_workers=self.worker_count)
