# mimics UA-MT code/dataloaders/la_heart.py (h5 opened in __getitem__)
import h5py
import numpy as np
import torch
from torch.utils.data import Dataset


class LAHeart(Dataset):
    def __init__(self, base_dir, n=8):
        self._base_dir = base_dir
        self.image_list = ["vol%d" % i for i in range(n)]

    def __len__(self):
        return len(self.image_list)

    def __getitem__(self, idx):
        h5f = h5py.File(self._base_dir + "/" + self.image_list[idx] + ".h5", "r")
        image = h5f["image"][:]
        h5f.close()
        return {"image": torch.from_numpy(image)}


def make_data(base_dir, n=8):
    import os
    os.makedirs(base_dir, exist_ok=True)
    for i in range(n):
        with h5py.File(base_dir + "/vol%d.h5" % i, "w") as f:
            f["image"] = np.random.rand(2, 2, 2).astype("float32")
