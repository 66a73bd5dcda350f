"""Mimics PlantPulse dataloader.py: datasets and loaders built at module level."""
import os, sys, tempfile
import torch
from torch.utils.data import DataLoader, Dataset

ROOT = os.path.join(tempfile.gettempdir(), "n_n4_02_data")
os.makedirs(ROOT, exist_ok=True)
LOG = os.path.join(ROOT, "builds.log")


class FolderDS(Dataset):  # stands in for torchvision ImageFolder (a directory walk)
    def __init__(self, root):
        with open(LOG, "a") as f:
            f.write(f"build pid={os.getpid()}\n")
        self.items = list(range(8))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return torch.tensor([float(self.items[i])])


train_dataset = FolderDS(ROOT)          # the labelled line: built again in every spawned worker
train_loader = DataLoader(train_dataset, batch_size=4, shuffle=True, num_workers=2)
num_classes = 3
