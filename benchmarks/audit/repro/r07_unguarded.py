"""r07: worker starts at import time of the main script (WSP101) and guarded twins.

Cases: loop = module-level `for batch in loader` over DataLoader(num_workers=2) (dcgan shape);
call = module-level call of a function that iterates the loader (super_resolution shape);
pool = module-level multiprocessing.Pool(2).map; guarded = loader built at module level,
iterated only in a function called under the guard (vae/mnist shape).
"""
import multiprocessing
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

CASE = sys.argv[1]
loader = DataLoader(TensorDataset(torch.arange(8.0)), batch_size=4, num_workers=2)


def square(x):
    return x * x


def train():
    return sum(x.sum().item() for (x,) in loader)


if CASE == "loop":
    total = 0.0
    for (x,) in loader:
        total += x.sum().item()
    print("sum", total)
elif CASE == "call":
    print("sum", train())
elif CASE == "pool":
    with multiprocessing.Pool(2) as pool:
        print("squares", pool.map(square, range(4)))

if __name__ == "__main__" and CASE == "guarded":
    print("sum", train())
