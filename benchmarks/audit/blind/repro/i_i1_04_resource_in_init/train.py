"""Guarded driver: builds tiny files, a dataset from datasets.py and DataLoader(num_workers=2).
Cases: h5py_init, npz_init (hazards); npz_arrays, json_pickle (safe)."""
import os
import sys
import json
import pickle
import tempfile
import h5py
import numpy as np
from torch.utils.data import DataLoader
from datasets import VideoSummDataset, ImageDataset, MSMODataset, worker_init_fn


def make_files(d):
    h5 = os.path.join(d, "feat.h5")
    with h5py.File(h5, "w") as f:
        for k in ("v0", "v1"):
            f.create_dataset(k + "/features", data=np.zeros((3, 4), np.float32))
    npz = os.path.join(d, "ann.npz")
    np.savez(npz, center=np.zeros((4, 2), np.float32))
    js = os.path.join(d, "gt.json")
    json.dump({"a": 1, "b": 2}, open(js, "w"))
    pk = os.path.join(d, "data.pkl")
    pickle.dump({"a": [1.0], "b": [2.0]}, open(pk, "wb"))
    return h5, npz, js, pk


def main(case):
    with tempfile.TemporaryDirectory() as d:
        h5, npz, js, pk = make_files(d)
        ds = {
            "h5py_init": lambda: VideoSummDataset(["v0", "v1"], h5),
            "npz_init": lambda: ImageDataset(npz, keep_npz=True),
            "npz_arrays": lambda: ImageDataset(npz, keep_npz=False),
            "json_pickle": lambda: MSMODataset(js, pk),
        }[case]()
        loader = DataLoader(ds, batch_size=1, num_workers=2, worker_init_fn=worker_init_fn)
        print("OK batches", sum(1 for _ in loader))


if __name__ == "__main__":
    main(sys.argv[1])
