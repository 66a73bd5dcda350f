"""r01: a lambda collate_fn given to a DataLoader with workers (diffusers/peft dreambooth shape).

Cases (argv[1]): hazard = lambda built in main(), workers=2; workers0 = same lambda, num_workers=0;
module_fn = a module-level collate function with workers=2.
"""
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset


def collate(examples, flag=False):
    return torch.stack([x for (x,) in examples])


def main(case):
    dataset = TensorDataset(torch.arange(8.0))
    workers = 0 if case == "workers0" else 2
    if case == "module_fn":
        loader = DataLoader(dataset, batch_size=4, collate_fn=collate, num_workers=workers)
    else:
        loader = DataLoader(dataset, batch_size=4, collate_fn=lambda ex: collate(ex, True), num_workers=workers)
    print("sum", sum(batch.sum().item() for batch in loader))


if __name__ == "__main__":
    main(sys.argv[1])
