"""Shape of geo-deep-learning notebooks/00_quickstart.ipynb cell 12: the notebook defines _load_mask_int64 and
monkeypatches it onto the imported CSVDataset class at run time (CSVDataset._load_mask = ...); the datamodule's
DataLoader(num_workers=1) then feeds Lightning's fit. A spawned worker re-imports csv_dataset and never sees the
patch, so masks come back as float (B,1,H,W) and the int64 loss fails; fork inherits the patched class.
Cases: hazard (class patched in the parent only), subclass (safe twin: override defined in the dataset module)."""
import os
import sys

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from csv_dataset import CSVDataset, CSVDatasetInt64


def _load_mask_int64(self, index):          # "notebook" definition (lives in __main__)
    return torch.from_numpy(self.files[index]["mask"][0]).long(), f"m{index}"


def main(case):
    if case == "hazard":
        CSVDataset._load_mask = _load_mask_int64     # run-time patch in the parent only
        ds = CSVDataset(4)
    else:
        ds = CSVDatasetInt64(4)
    print("parent sample dtype", ds[0]["mask"].dtype)
    loader = DataLoader(ds, batch_size=2, num_workers=1)
    for batch in loader:
        y = batch["mask"]
        logits = torch.zeros(y.shape[0], 2, 2, 2)
        loss = F.nll_loss(F.log_softmax(logits, 1), y)   # needs int64 (B,H,W) targets
    print("OK", case, float(loss))


if __name__ == "__main__":
    main(sys.argv[1])
