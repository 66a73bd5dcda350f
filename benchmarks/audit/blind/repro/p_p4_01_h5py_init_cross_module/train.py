# mimics planet_sentinel_multimodality main.py: objective() builds the dataset from data.py and iterates
# a DataLoader with num_workers=8 (here 2), called under the main guard.
import os, sys, tempfile
import h5py
import numpy as np
import data


def make_file(path):
    with h5py.File(path, "w") as f:
        f["time_series"] = np.random.rand(16, 5, 3)
        f["crop_labels"] = np.arange(16) % 3


def objective(case, path):
    cls = {"hazard": data.EagerH5Dataset, "safe": data.LazyH5Dataset}[case]
    loader = data.make_loader(cls(path), 4, 2)
    n = 0
    for x, y in loader:
        n += x.shape[0]
    print(case, "OK batches of", n)


if __name__ == "__main__":
    case = sys.argv[1]
    path = os.path.join(tempfile.mkdtemp(), "s2.h5")
    make_file(path)
    objective(case, path)
