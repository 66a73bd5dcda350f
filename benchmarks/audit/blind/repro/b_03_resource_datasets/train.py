"""b_03: a dataset from another module keeps an lmdb env / h5py File opened in __init__ and reaches
DataLoader(num_workers=2) through ConcatDataset/Subset, built in a function the guard calls.

Cases (argv[1]): lmdb_concat (hazard), h5py (hazard), lazy (open in __getitem__: safe twin)."""
import sys

from torch.utils.data import DataLoader

import data


def train(kind):
    data.make_files()
    dataset = data.hierarchical_dataset(kind)
    loader = DataLoader(dataset, batch_size=4, shuffle=True, num_workers=2)
    print("sum", sum(b.sum().item() for b in loader))


if __name__ == "__main__":
    train(sys.argv[1])
