import os
import tempfile
import torch
from torch.utils.data import Dataset

CKPT = os.path.join(tempfile.gettempdir(), "d_d1_03_ckpt.pt")
LOG = os.path.join(tempfile.gettempdir(), "d_d1_03_loads.log")


def heavy_load(tag):
    """Stands for torch.load of a checkpoint / lpips.LPIPS(net='vgg'): records which process loaded."""
    if not os.path.exists(CKPT):
        torch.save({"w": torch.zeros(4)}, CKPT)
    with open(LOG, "a") as f:
        f.write(f"{tag} {os.getpid()}\n")
    return torch.load(CKPT)


def report():
    with open(LOG) as f:
        pids = {line.split()[1] for line in f}
    os.remove(LOG)
    return len(pids)


class PascalVOCDataset(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.tensor([i])
