"""Mimic a Jupyter notebook: definitions live in __main__, which has no file.
Under spawn the child cannot re-import the notebook, so notebook-defined
classes/functions are missing there ("Can't get attribute ... on __main__").
Cases: hazard (Dataset class from a cell + DataLoader(num_workers=2)),
pool (objective from a cell + ProcessPoolExecutor.map),
num_workers0 (cell class, num_workers=0), imported (class/func from a .py module)."""
import os
import sys
import concurrent.futures

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
from torch.utils.data import Dataset, DataLoader
import nbhelpers


class CellDataset(Dataset):          # "defined in a notebook cell"
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.tensor(float(i))


def cell_objective(x):               # "defined in a notebook cell"
    return (x - 3.0) ** 2


def as_notebook():
    # a notebook's __main__ has no __file__/__spec__: spawn children skip re-importing it
    m = sys.modules["__main__"]
    for attr in ("__file__",):
        if hasattr(m, attr):
            delattr(m, attr)
    m.__spec__ = None


def run(case):
    as_notebook()
    if case == "hazard":
        print(sum(b.sum().item() for b in DataLoader(CellDataset(), batch_size=2, num_workers=2)))
    elif case == "num_workers0":
        print(sum(b.sum().item() for b in DataLoader(CellDataset(), batch_size=2, num_workers=0)))
    elif case == "pool":
        with concurrent.futures.ProcessPoolExecutor(2) as ex:
            print(list(ex.map(cell_objective, [1.0, 2.0])))
    elif case == "imported":
        print(sum(b.sum().item() for b in DataLoader(nbhelpers.ImportedDataset(), batch_size=2, num_workers=2)))
        with concurrent.futures.ProcessPoolExecutor(2) as ex:
            print(list(ex.map(nbhelpers.imported_objective, [1.0, 2.0])))
    print("OK", case)


if __name__ == "__main__":
    run(sys.argv[1])
