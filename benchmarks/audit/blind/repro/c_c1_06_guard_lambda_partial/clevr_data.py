"""Mimics StoryGAN code/clevr_data.py: datasets keep the transform they are given."""
import numpy as np
import torch.utils.data


class StoryDataset(torch.utils.data.Dataset):
    def __init__(self, transform, video_len=4):
        self.transforms = transform
        self.video_len = video_len

    def __getitem__(self, i):
        video = [np.full((2, 2, 3), i + k, dtype=np.float32) for k in range(self.video_len)]
        return self.transforms(video)

    def __len__(self):
        return 4


class ImageDataset(torch.utils.data.Dataset):
    def __init__(self, transform):
        self.transforms = transform

    def __getitem__(self, i):
        return self.transforms(np.full((2, 2, 3), i, dtype=np.float32))

    def __len__(self):
        return 4
