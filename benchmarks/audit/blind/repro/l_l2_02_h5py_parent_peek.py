"""Shape of LIBERO lifelong/main.py: a dataset (robomimic SequenceDataset) opens its h5py
file lazily and caches the handle on self; main() peeks at one batch in the parent
(compute_flops, DataLoader num_workers=0) and only then hands the dataset to
DataLoader(num_workers=cfg.train.num_workers=4): the cached h5py handle is pickled (WSP301).
Cases: parent_peek (hazard), no_peek (safe twin: handle first opened inside each worker)."""
import os
import sys
import tempfile

import h5py
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class SeqDataset(Dataset):
    def __init__(self, path):
        self.path = path
        self._hdf5_file = None  # lazy, like robomimic

    @property
    def hdf5_file(self):
        if self._hdf5_file is None:
            self._hdf5_file = h5py.File(self.path, "r")
        return self._hdf5_file

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.from_numpy(self.hdf5_file["data/demo_0/actions"][i])


def main(case):
    path = os.path.join(tempfile.mkdtemp(), "demo.hdf5")
    with h5py.File(path, "w") as f:
        f.create_dataset("data/demo_0/actions", data=np.arange(16, dtype=np.float32).reshape(8, 2))
    ds = SeqDataset(path)
    if case == "parent_peek":
        next(iter(DataLoader(ds, batch_size=1, num_workers=0)))  # compute_flops
    n = 0
    for batch in DataLoader(ds, batch_size=4, num_workers=2):
        n += batch.shape[0]
    print("items", n)
    print("OK")


if __name__ == "__main__":
    main(sys.argv[1])
