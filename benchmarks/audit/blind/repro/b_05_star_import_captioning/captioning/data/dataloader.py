"""A feature loader keeping a lambda / a local def as attributes, a dataset holding three of them and an h5py label
file, and a DataLoader wrapper that starts iterators with num_workers in __init__ (self-critical.pytorch shape)."""
import io
import os
import tempfile
from functools import partial

import h5py
import numpy as np
import torch
from torch.utils import data

ROOT = os.path.join(tempfile.gettempdir(), "b05_data")


class HybridLoader:
    def __init__(self, ext, mode):
        self.ext = ext
        if mode == "picklable":
            self.loader = np.asarray
        elif self.ext == ".npy":
            self.loader = lambda x: np.load(io.BytesIO(x))
        else:
            def load_npz(x):
                x = np.load(io.BytesIO(x))
                return x["feat"]
            self.loader = load_npz

    def get(self, i):
        buf = io.BytesIO()
        if self.ext == ".npy":
            np.save(buf, np.full(2, i, dtype="float32"))
        else:
            np.savez(buf, feat=np.full(2, i, dtype="float32"))
        return self.loader(buf.getvalue()) if self.loader is not np.asarray else np.full(2, i, dtype="float32")


class Dataset(data.Dataset):
    def __init__(self, opt):
        self.opt = opt
        if opt["input_label_h5"] != "none":
            os.makedirs(ROOT, exist_ok=True)
            path = os.path.join(ROOT, "label.h5")
            with h5py.File(path, "w") as f:
                f["labels"] = np.arange(8)
            self.h5_label_file = h5py.File(path, "r", driver="core")
            self.label = self.h5_label_file["labels"][:]
        mode = opt["mode"]
        self.fc_loader = HybridLoader(".npy", "picklable" if mode in ("no_lambda", "picklable") else mode)
        self.att_loader = HybridLoader(".npz", "picklable" if mode == "picklable" else mode)

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.from_numpy(self.fc_loader.get(i) + self.att_loader.get(i))

    def collate_func(self, batch, split):
        return torch.stack(batch)


class DataLoader:
    def __init__(self, opt):
        self.dataset = Dataset(opt)
        self.loaders, self.iters = {}, {}
        for split in ["train", "val"]:
            self.loaders[split] = data.DataLoader(dataset=self.dataset, batch_size=4, num_workers=2,
                                                  collate_fn=partial(self.dataset.collate_func, split=split))
            self.iters[split] = iter(self.loaders[split])

    def get_batch(self, split):
        return next(self.iters[split])
