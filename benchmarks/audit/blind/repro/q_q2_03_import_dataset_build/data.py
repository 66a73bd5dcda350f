import os
import sys
import torch
from torch.utils.data import TensorDataset, DataLoader

LOG = os.environ.get("Q2_03_LOG", "/tmp/q_q2_03_builds.log")


def build():                          # stands in for MNIST(..., download=True) at import
    with open(LOG, "a") as f:
        f.write("build pid=%d\n" % os.getpid())
    return TensorDataset(torch.randn(32, 4), torch.randint(0, 10, (32,)))


if os.environ.get("Q2_03_CASE", "hazard") == "hazard":
    data_train = build()              # pytorch-classification-uncertainty data.py:6
    dataloaders = {"train": DataLoader(data_train, batch_size=8, shuffle=True, num_workers=2)}
    # data.py:16: the DataLoader is only built at import; no worker starts here


def get_dataloaders():
    return {"train": DataLoader(build(), batch_size=8, shuffle=True, num_workers=2)}
