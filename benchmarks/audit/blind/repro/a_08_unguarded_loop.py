"""a_08: a script with no main guard: data loaded and a DataLoader(num_workers=1) iterated by a
module-level epoch loop (Facial-Expression-Recognition mainpro_FER.py, coral-cnn model-code/*.py).

Cases: unguarded (the loop runs at import time; the spawned worker re-imports the script, reloads the data
and starts its own worker while bootstrapping), guarded (the same statements under the guard)."""
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

CASE = sys.argv[1]


def load_split():
    print("LOADING", flush=True)        # stands for FER2013(): h5py.File(..., driver="core") read at import
    return TensorDataset(torch.arange(8.0))


def train(epoch, loader):
    return sum(b.sum().item() for (b,) in loader)


if CASE == "unguarded" or __name__ == "__main__":
    trainset = load_split()
    trainloader = DataLoader(trainset, batch_size=4, shuffle=True, num_workers=1)
    for epoch in range(2):
        print("sum", train(epoch, trainloader))
