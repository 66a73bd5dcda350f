"""Shape j_j1_05 (pytorch-SRResNet dataset.py + main_srresnet.py): DatasetFromHdf5.__init__ opens
h5py.File and keeps hf.get("data")/hf.get("label") (h5py Datasets) on self; main() builds
DataLoader(num_workers=opt.threads).  Under spawn the dataset is pickled.
Usage: python j_j1_05_h5py_in_init.py CASE
  threads2     --threads 2: h5py objects pickled -> WSP301 hazard
  threads0     --threads default 0: no worker, nothing pickled -> safe
  lazy         threads 2, file opened lazily in __getitem__ -> safe
  local_model  threads 2 with lazy dataset; a class defined inside main() (_content_model) is used only in the parent -> safe
"""
import os
import sys
import tempfile
import h5py
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader


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
    path = os.path.join(tempfile.mkdtemp(), "train.h5")
    with h5py.File(path, "w") as f:
        f["data"] = np.ones((4, 1, 2, 2), dtype=np.float32)
        f["label"] = np.ones((4, 1, 2, 2), dtype=np.float32)
    threads = 0 if case == "threads0" else 2
    ds = LazyHdf5(path) if case in ("lazy", "local_model") else DatasetFromHdf5(path)
    if case == "local_model":
        class _content_model(torch.nn.Module):
            def forward(self, x):
                return x
        net = _content_model()
    loader = DataLoader(ds, batch_size=2, num_workers=threads, shuffle=True)
    print("OK", case, sum(float(x.sum()) for x, y in loader))


if __name__ == "__main__":
    main(sys.argv[1])
