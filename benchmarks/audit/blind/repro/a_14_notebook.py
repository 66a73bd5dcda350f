"""a_14: notebook cells run in a kernel whose __main__ has no file, so a spawned worker cannot re-import
it (dl-for-micro train_infection_classifier.ipynb, pytorch-deep-learning 04 notebooks, CLIP
Prompt_Engineering notebook).  The script drops __main__.__file__ first, as a Jupyter kernel's __main__
is, then runs its "cells" at top level with no guard.

Cases: dataset_class (a Dataset class defined in a cell, DataLoader(num_workers=1)); safe twins:
workers0 (the same class, num_workers=0), model_class (an nn.Module class defined in a cell, used only in
the kernel while workers=2 load an importable dataset), imported (workers=2 over an importable dataset whose transform is a module-level function)."""
import __main__
import sys

del __main__.__file__

import torch  # noqa: E402
from torch.utils.data import DataLoader, Dataset, TensorDataset  # noqa: E402

CASE = sys.argv[1]


class CustomDataset(Dataset):            # cell: the notebook's Dataset
    def __init__(self, images):
        self.images = images

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        return self.images[index] * 2


class MinimalNet(torch.nn.Module):       # cell: the notebook's model
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(1, 1)

    def forward(self, x):
        return self.fc(x)


if CASE in ("imported", "model_class"):
    loader = DataLoader(TensorDataset(torch.arange(8.0)), batch_size=4, num_workers=2,
                        collate_fn=torch.utils.data.default_collate)
    total = sum(b.sum().item() for (b,) in loader)
    if CASE == "model_class":
        total += MinimalNet()(torch.ones(1, 1)).shape[0]
else:
    loader = DataLoader(CustomDataset(torch.arange(8.0)), batch_size=4, num_workers=0 if CASE == "workers0" else 1)
    total = sum(b.sum().item() for b in loader)
print("sum", total)
