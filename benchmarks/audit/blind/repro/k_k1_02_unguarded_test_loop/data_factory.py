# mimics CFSNet/SPSR data/__init__.py: non-train phase -> num_workers=1 hard-coded
import torch
from torch.utils.data import DataLoader, Dataset


class ImgDataset(Dataset):
    def __len__(self):
        return 3

    def __getitem__(self, i):
        return torch.tensor([i])


def create_dataloader(dataset, phase, n_workers=8):
    num_workers = n_workers if phase == "train" else 1
    return DataLoader(dataset, batch_size=1, shuffle=False, num_workers=num_workers)
