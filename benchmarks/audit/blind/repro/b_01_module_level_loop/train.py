"""b_01: a training script whose body runs at module level (PyTorch-GAN, deeplabv3, pytorchTutorial shape).

Cases (argv[1]):
  loop        module-level `for epoch: for batch in loader` with num_workers=2 (the --n_cpu default)
  iter_once   module-level `next(iter(loader))` with num_workers=2
  workers0    the same module-level loop, DataLoader without num_workers (safe)
  heavy       a checkpoint loaded with torch.load at module level, loop under the guard (WSP103: repeated)
  guarded_iter loaders built at module level, iterated only under the main guard (safe)
"""
import os
import sys
import tempfile

import torch
from torch.utils.data import DataLoader

from datasets import *  # noqa: F401,F403  (the local datasets.py, as in the GAN scripts)

case = sys.argv[1]
n_cpu = 0 if case == "workers0" else 2

if case == "heavy":
    ckpt = os.path.join(tempfile.gettempdir(), "b01_ckpt.pt")
    if not os.path.exists(ckpt):
        torch.save({"w": torch.zeros(4)}, ckpt)
    print("LOADING checkpoint", flush=True)
    state = torch.load(ckpt)

kwargs = {} if case == "workers0" else {"num_workers": n_cpu}
dataloader = DataLoader(ImageDataset(8, transforms_=[torch.neg]), batch_size=4, **kwargs)


def run():
    total = 0.0
    for epoch in range(2):
        for i, batch in enumerate(dataloader):
            total += batch.sum().item()
    print("sum", total)


if case in ("loop", "workers0"):
    for epoch in range(2):
        for i, batch in enumerate(dataloader):
            pass
    print("done")
elif case == "iter_once":
    dataiter = iter(dataloader)
    print(next(dataiter))

if __name__ == "__main__" and case in ("heavy", "guarded_iter"):
    run()
