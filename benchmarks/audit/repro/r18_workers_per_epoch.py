"""r18: a DataLoader with workers iterated once per epoch (WSP902).

Case: per_epoch = DataLoader(num_workers=2) iterated 3 times under the guard: without
persistent_workers every pass starts new workers, and under spawn each one re-imports this script
(the LOADING marker counts imports: 1 + 2 workers x 3 epochs).
Case: cycle = the same loader consumed through an endless `while True: for x in dl: yield x`
generator for 3 passes (the shape of a step-based trainer's `cycle(dl)`).
Case: persistent = the same loop with persistent_workers=True: the workers start once.
"""
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

print("LOADING", flush=True)


def cycle(dl):
    while True:
        for batch in dl:
            yield batch


def main(case):
    loader = DataLoader(TensorDataset(torch.arange(8.0)), batch_size=4, num_workers=2,
                        persistent_workers=case == "persistent")
    if case == "cycle":
        batches = cycle(loader)
        total = sum(next(batches)[0].sum().item() for _ in range(6))
    else:
        total = sum(x.sum().item() for _ in range(3) for (x,) in loader)
    print("sum", total)


if __name__ == "__main__":
    main(sys.argv[1])
