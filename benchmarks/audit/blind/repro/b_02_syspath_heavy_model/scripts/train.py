"""b_02: a script that appends a model folder to sys.path and builds the model at module level (deeplabv3, MUNIT).

The model constructor (another module) calls torch.load.  Cases (argv[1]):
  unguarded   model built and loader iterated at module level, num_workers=2 (WSP103 + WSP101)
  guarded     model built at module level, loader iterated under the main guard (WSP103: repeated per worker)
  ctor_in_main model built under the guard (safe twin)
"""
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "model"))
from net import SegNet  # noqa: E402

import torch  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

case = sys.argv[1]
loader = DataLoader(TensorDataset(torch.arange(8.0)), batch_size=4, num_workers=2)

if case in ("unguarded", "guarded"):
    network = SegNet()

if case == "unguarded":
    for step, (x,) in enumerate(loader):
        pass
    print("done")

if __name__ == "__main__" and case in ("guarded", "ctor_in_main"):
    if case == "ctor_in_main":
        network = SegNet()
    print("sum", sum(x.sum().item() for (x,) in loader))
