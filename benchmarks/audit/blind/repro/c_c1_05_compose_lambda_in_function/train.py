"""c_c1_05: mrnet train.py shape: run(args) builds Compose([Lambda(lambda ...), ..., Lambda(lambda ...)])
(train.py:167/:171) and hands it to MRDataset (dataloader.py) for DataLoader(num_workers=11; 2 here);
run() is called under the main guard.  Cases:
  hazard     - the lambdas (run.<locals>.<lambda>)
  safe       - the same steps as module-level functions
  validation - MRDataset(train=False): transform dropped, only the __init__ map lambda (parent) remains
"""
import sys

import torch

import tv
from dataloader import MRDataset


def to_tensor(x):
    return torch.as_tensor(x)


def repeat3(x):
    return x.repeat(3, 1)


def run(case):
    if case == "hazard":
        augmentor = tv.Compose([
            tv.Lambda(lambda x: torch.as_tensor(x)),
            tv.RandomFlip(),
            tv.Lambda(lambda x: x.repeat(3, 1)),
        ])
    else:
        augmentor = tv.Compose([tv.Lambda(to_tensor), tv.RandomFlip(), tv.Lambda(repeat3)])
    ds = MRDataset(6, train=(case != "validation"), transform=augmentor)
    loader = torch.utils.data.DataLoader(ds, batch_size=1, shuffle=True, num_workers=2)
    print("sum", sum(float(b.sum()) for b in loader))


if __name__ == "__main__":
    run(sys.argv[1])
