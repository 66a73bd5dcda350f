"""m4 shape 03: h5py files opened in Dataset.__init__ (code-of-learn kaggle_dog_vs_cat/model/dataset.py).

Cases:
  h5_local   handles are locals of __init__; only tensors read from them are kept (the repository's code: safe)
  h5_kept    twin that keeps the open h5py.File on self (WSP301 shape, for contrast)
Both iterate DataLoader(num_workers=2) under the main guard.
"""
import os
import sys
import tempfile

import h5py
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader

CASE = sys.argv[1] if len(sys.argv) > 1 else "h5_local"


class H5Local(Dataset):
    def __init__(self, files):
        label_file = h5py.File(files[0], "r")
        self.label = torch.from_numpy(label_file["label"][()])
        parts = []
        for f in files:
            h5_file = h5py.File(f, "r")
            parts.append(torch.from_numpy(h5_file["data"][()]))
        self.dataset = torch.cat(parts, 1)

    def __len__(self):
        return len(self.label)

    def __getitem__(self, i):
        return self.dataset[i], self.label[i]


class H5Kept(Dataset):
    def __init__(self, files):
        self.h = h5py.File(files[0], "r")

    def __len__(self):
        return len(self.h["label"])

    def __getitem__(self, i):
        return torch.from_numpy(self.h["data"][i]), int(self.h["label"][i])


def make_files(d):
    paths = []
    for k in range(2):
        p = os.path.join(d, f"train_feature_{k}.hd5f")
        with h5py.File(p, "w") as h:
            h.create_dataset("data", data=np.random.rand(20, 4).astype("float32"))
            h.create_dataset("label", data=np.arange(20) % 2)
        paths.append(p)
    return paths


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as d:
        files = make_files(d)
        ds = H5Local(files) if CASE == "h5_local" else H5Kept(files)
        dl = DataLoader(ds, batch_size=4, shuffle=True, num_workers=2)
        n = 0
        for x, y in dl:
            n += len(y)
        print("OK", n, flush=True)
