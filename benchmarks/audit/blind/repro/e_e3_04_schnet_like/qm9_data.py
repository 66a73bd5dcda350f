"""Like cG-SchNet qm9_data.py: the dataset keeps a lambda in an attribute (energy_regression) and
runs the Process-based preprocessing (n_threads=8 there, 2 here) when it builds its database."""
import numpy as np
from torch.utils.data import Dataset

from preprocess_dataset import preprocess_dataset


def _energy_regression(x):
    return x.dot(np.array([1.0, 2.0])) + 3.0


class QM9gen(Dataset):
    def __init__(self, n=6, attr_style="lambda", preprocess=None):
        if attr_style == "lambda":
            self.energy_regression = lambda x: x.dot(np.array([1.0, 2.0])) + 3.0
        else:
            self.energy_regression = _energy_regression
        if preprocess:
            print("preprocessed", preprocess_dataset("qm9.db", 2, n_threads=2, style=preprocess))
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return np.array([float(i), 1.0], dtype=np.float32)
