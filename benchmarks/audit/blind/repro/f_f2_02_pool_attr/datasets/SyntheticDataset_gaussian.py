# mimics pytorch-superpoint datasets/SyntheticDataset_gaussian.py: a Pool kept on the dataset
import multiprocessing
import numpy as np
import torch.utils.data as data


class SyntheticDataset_gaussian(data.Dataset):
    def __init__(self, transform=None, task='train', **config):
        from utils.homographies import sample_homography_np as sample_homography
        self.transform = transform
        self.sample_homography = sample_homography
        self.pool = multiprocessing.Pool(2)
        self.samples = list(range(8))

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, index):
        return float(self.sample_homography(index)[0, 0])
