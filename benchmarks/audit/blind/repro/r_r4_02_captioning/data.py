# mimics captioning/data/dataloader.py (and pth_loader.py): Dataset + HybridLoader + wrapper
# that builds torch DataLoaders with num_workers=4 and calls iter() right away.
import io, os, sys
from functools import partial
import h5py
import numpy as np
import torch
from torch.utils import data

H5 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "labels.h5")


def make_h5():
    if not os.path.exists(H5):
        with h5py.File(H5, "w") as f:
            f["labels"] = np.arange(16).reshape(8, 2)


def _load_npy(x):
    return x


class HybridLoader:
    def __init__(self, ext, mode):
        if mode == "lambda":            # self.loader = lambda x: np.load(...)
            self.loader = lambda x: x
        elif mode == "local_def":       # def load_npz(x): ... ; self.loader = load_npz
            def load_npz(x):
                return x
            self.loader = load_npz
        else:                           # safe twin: module-level function
            self.loader = _load_npy

    def get(self, key):
        return self.loader(np.float32(key))


class Dataset(data.Dataset):
    def __init__(self, mode):
        make_h5()
        self.mode = mode
        if mode == "h5_attr":           # self.h5_label_file = h5py.File(..., 'r', driver='core')
            self.h5_label_file = h5py.File(H5, "r", driver="core")
            self.label = self.h5_label_file["labels"][:]
        else:
            with h5py.File(H5, "r") as f:   # safe twin: read what is needed, close it
                self.label = f["labels"][:]
        self.fc_loader = HybridLoader(".npy", mode if mode in ("lambda", "local_def") else "safe")

    def __getitem__(self, i):
        return torch.tensor(self.label[i]), self.fc_loader.get(i)

    def __len__(self):
        return len(self.label)

    def collate_func(self, batch, split):
        return [b[0] for b in sorted(batch, key=lambda x: 0)]   # lambda used inside the worker: fine


class DataLoader:
    def __init__(self, mode):
        self.dataset = Dataset(mode)
        self.loaders, self.iters = {}, {}
        for split in ["train", "val"]:
            self.loaders[split] = data.DataLoader(dataset=self.dataset, batch_size=2, num_workers=4,
                                                  collate_fn=partial(self.dataset.collate_func, split=split))
            self.iters[split] = iter(self.loaders[split])

    def get_batch(self, split):
        return next(self.iters[split])
