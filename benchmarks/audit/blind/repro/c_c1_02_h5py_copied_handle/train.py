"""c_c1_02: h5py handle opened in one object's __init__ and copied into the Dataset given to
DataLoader(num_workers=1) (SST data.py:25/:28 -> :164, train.py:136).  Cases:
  hazard      - DataSplit keeps the h5py.File opened by ProposalDataset
  safe_lazy   - LazySplit keeps the path and opens in __getitem__ (in the worker)
  parent_only - an h5py handle kept by an object used only in the parent (CloserLookFewShot
                feature_loader.py:13); the workers get a plain tensor dataset
"""
import os
import sys
import tempfile

import h5py
import torch
from torch.utils.data import DataLoader, TensorDataset

import data

if __name__ == "__main__":
    case = sys.argv[1]
    path = os.path.join(tempfile.mkdtemp(), "feats.hdf5")
    data.make_file(path)
    ds = data.ProposalDataset(path)
    if case == "hazard":
        split = data.DataSplit(ds.ids, ds)
    elif case == "safe_lazy":
        split = data.LazySplit(ds.ids, ds)
    else:
        with h5py.File(path, "r") as f:
            kept = data.SimpleHDF5Dataset(f)
            split = TensorDataset(torch.from_numpy(kept.all_feats))
    loader = DataLoader(split, batch_size=2, num_workers=1)
    print("sum", sum(float(b[0].sum() if isinstance(b, list) else b.sum()) for b in loader))
