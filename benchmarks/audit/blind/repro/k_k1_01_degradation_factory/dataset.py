# mimics PMRF torch_datasets/image_folder_dataset.py: the dataset keeps the degradation callable
import torch
from torch.utils.data import Dataset


class ImageFolderDataset(Dataset):
    def __init__(self, n, degradation):
        self.n = n
        self.degradation = degradation

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        x = torch.full((3, 4, 4), float(i) / self.n)
        y, maybe_x = self.degradation(x)
        return {"x": x if maybe_x is None else maybe_x, "y": y}
