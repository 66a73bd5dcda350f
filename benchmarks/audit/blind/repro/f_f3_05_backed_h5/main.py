"""f_f3_05: UNIFAN: AnnDataset keeps a backed (open h5py) AnnData; Trainer's DataLoaders
(num_workers default 8) pickle it under spawn. Usage: python main.py CASE
CASE: backed_h5py (hazard), lazy_open (safe twin), numpy_dataset (safe)."""
import os
import sys
import tempfile

import h5py
import numpy as np

from unifan.datasets import AnnDataset, LazyAnnDataset, NumpyDataset
from unifan.trainer import Trainer

if __name__ == "__main__":
    case = sys.argv[1]
    d = tempfile.mkdtemp()
    h5 = os.path.join(d, "x.h5ad")
    with h5py.File(h5, "w") as f:
        f["X"] = np.arange(12.0).reshape(6, 2)
    npy = os.path.join(d, "r.npy")
    np.save(npy, np.arange(12.0).reshape(6, 2))
    ds = {"backed_h5py": AnnDataset, "lazy_open": LazyAnnDataset, "numpy_dataset": NumpyDataset}[case]
    print("RESULT", Trainer(ds(h5 if case != "numpy_dataset" else npy), num_workers=2).train())
