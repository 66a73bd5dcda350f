# mimics SRDenseNet-pytorch dataset.py + train.py: DatasetFromHdf5 opens h5py.File in __init__,
# DataLoader(num_workers=opt.threads, default 1).
# cases: h5_init (hazard) | h5_lazy (safe: file opened in __getitem__)
import os, sys, tempfile
import h5py
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class DatasetFromHdf5(Dataset):
    def __init__(self, file_path):
        hf = h5py.File(file_path, "r")
        self.data = hf.get("data")
        self.target = hf.get("label")

    def __getitem__(self, i):
        return torch.from_numpy(self.data[i]).float(), torch.from_numpy(self.target[i]).float()

    def __len__(self):
        return self.data.shape[0]


class LazyHdf5(Dataset):
    def __init__(self, file_path):
        self.file_path = file_path
        with h5py.File(file_path, "r") as hf:
            self.n = hf["data"].shape[0]
        self.hf = None

    def __getitem__(self, i):
        if self.hf is None:
            self.hf = h5py.File(self.file_path, "r")
        return torch.from_numpy(self.hf["data"][i]).float(), torch.from_numpy(self.hf["label"][i]).float()

    def __len__(self):
        return self.n


def main(case):
    with tempfile.TemporaryDirectory() as tmp:
        p = os.path.join(tmp, "train.h5")
        with h5py.File(p, "w") as f:
            f["data"] = np.zeros((4, 1, 8, 8), np.float32)
            f["label"] = np.ones((4, 1, 8, 8), np.float32)
        ds = DatasetFromHdf5(p) if case == "h5_init" else LazyHdf5(p)
        loader = DataLoader(ds, batch_size=2, num_workers=1, shuffle=True)
        print("OK batches", sum(1 for _ in loader))


if __name__ == "__main__":
    main(sys.argv[1])
