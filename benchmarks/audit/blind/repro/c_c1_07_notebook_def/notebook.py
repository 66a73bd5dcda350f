"""c_c1_07: eat_pytorch_in_20_days notebooks.  The script drops __main__.__file__ (a Jupyter kernel's
__main__ has none, so spawned workers cannot re-import it) and runs its "cells" at top level.  Cases:
  hazard        - A-1 cell 17/20: `def transform_label` in a cell, target_transform of an ImageFolder,
                  DataLoader(num_workers=8; 2 here) iterated
  no_workers    - 1-2 cells 9-11: the same def, DataLoader without num_workers (0)
  tensordataset - 3-2 cell 9 / 6-2 cell 6: DataLoader(TensorDataset(...), num_workers=2): nothing from the
                  notebook reaches the workers
"""
import __main__
import sys

del __main__.__file__

import torch  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

from folder_ds import ImageFolder  # noqa: E402

CASE = sys.argv[1]


def transform_label(x):          # cell: notebook-defined function
    return torch.tensor([x]).float()


if CASE == "tensordataset":
    ds = TensorDataset(torch.arange(10.0), torch.arange(10.0))
    dl = DataLoader(ds, batch_size=5, shuffle=True, num_workers=2)
else:
    ds_train = ImageFolder(10, target_transform=transform_label)
    dl = DataLoader(ds_train, batch_size=5, shuffle=True, num_workers=2 if CASE == "hazard" else 0)
total = 0.0
for features, labels in dl:
    total += float(features.sum())
print("sum", total)
