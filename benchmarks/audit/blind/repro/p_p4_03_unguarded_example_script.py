# mimics cytoself example_scripts/simple_example.py (top-level download_sample_data(), const_dataloader(),
# trainer.fit() over DataLoader(num_workers=4), no main guard) and the safe look-alikes:
#   guarded   - the same statements under `if __name__ == "__main__":`
#   automain  - a sacred-style @ex.automain decorator (LandslidePrediction main.py) that runs main() only when the
#               function's module is '__main__' (spawned children import the script as '__mp_main__')
# Each "download" appends a line to a log file so repeated import-time work is visible.
import os, sys, tempfile
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader

LOG = os.path.join(tempfile.gettempdir(), "p_p4_03_downloads.log")


class ArrayDataset(Dataset):
    def __init__(self, n=8):
        self.x = np.random.rand(n, 3).astype(np.float32)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i]


def download_sample_data():
    with open(LOG, "a") as f:
        f.write(f"download in pid {os.getpid()}\n")


def fit(loader):
    return sum(b.shape[0] for b in loader)


def automain(function):   # the logic of sacred.Experiment.automain
    if function.__module__ == "__main__":
        function()
    return function


case = sys.argv[1]

if case == "hazard":
    download_sample_data()                                   # WSP103 shape
    loader = DataLoader(ArrayDataset(), batch_size=4, num_workers=2)
    print("hazard fitted", fit(loader))                      # WSP101 shape

if case == "guarded" and __name__ == "__main__":
    download_sample_data()
    loader = DataLoader(ArrayDataset(), batch_size=4, num_workers=2)
    print("guarded fitted", fit(loader))

if case == "automain":
    @automain
    def main():
        download_sample_data()
        loader = DataLoader(ArrayDataset(), batch_size=4, num_workers=2)
        print("automain fitted", fit(loader))

if __name__ == "__main__":
    with open(LOG) as f:
        print("downloads logged:", len(f.readlines()))
    os.remove(LOG)
