import os, tempfile
import torch
from torch.utils.data import Dataset

ROOT = os.path.join(tempfile.gettempdir(), "n_n4_02_data")
os.makedirs(ROOT, exist_ok=True)
LOG = os.path.join(ROOT, "builds.log")


class FolderDS(Dataset):
    def __init__(self, root):
        with open(LOG, "a") as f:
            f.write(f"build pid={os.getpid()}\n")
        self.items = list(range(8))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return torch.tensor([float(self.items[i])])
