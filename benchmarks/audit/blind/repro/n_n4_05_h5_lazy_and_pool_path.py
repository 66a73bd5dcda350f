"""n4 shape 05 (safe look-alikes of clibd): an h5py file opened lazily in __getitem__
(dataset.py _open_hdf5) and a Pool that receives the hdf5 *path* and opens the file in the
worker (generate_split_csv_from_the_hdf5.py). Cases: lazy (safe), eager (twin: handle kept
from __init__), pool_path (safe), pool_handle (twin: handle passed as argument).
"""
import os, sys, tempfile
import h5py
import numpy as np
import torch
from multiprocessing import Pool
from torch.utils.data import DataLoader, Dataset

P = os.path.join(tempfile.gettempdir(), "n_n4_05.h5")


class Lazy(Dataset):
    def __init__(self, path, eager=False):
        self.path = path
        if eager:
            self.h = h5py.File(path, "r")["split"]

    def _open(self):
        self.h = h5py.File(self.path, "r")["split"]

    def __len__(self):
        return 4

    def __getitem__(self, i):
        if not hasattr(self, "h"):
            self._open()
        return torch.from_numpy(self.h["x"][i])


def count_rows(args):
    path, key = args
    with h5py.File(path, "r") as f:
        return len(f["split"][key])


def count_rows_handle(f):
    return len(f["split"]["x"])


if __name__ == "__main__":
    with h5py.File(P, "w") as f:
        f.create_dataset("split/x", data=np.arange(8.0).reshape(4, 2))
    case = sys.argv[1] if len(sys.argv) > 1 else "lazy"
    if case in ("lazy", "eager"):
        dl = DataLoader(Lazy(P, eager=(case == "eager")), batch_size=2, num_workers=2)
        print("OK", sum(b.shape[0] for b in dl))
    elif case == "pool_path":
        with Pool(2) as pool:
            print("OK", pool.map(count_rows, [(P, "x")]))
    elif case == "pool_handle":
        f = h5py.File(P, "r")
        with Pool(2) as pool:
            print("OK", pool.map(count_rows_handle, [f]))
