# usage: o_o1_03_import_time_dataset.py {hazard|safe}; mimics DL_Assignment5_SimCLR_MSDS24031 allCode.py
# hazard: datasets built at module level, loader with workers used under the guard -> each spawned worker
#         re-imports the script and rebuilds the datasets (counted in a marker file)
# safe: datasets built inside the guard
import os, sys, tempfile
import torch
from torch.utils.data import Dataset, DataLoader

MARK = os.path.join(tempfile.gettempdir(), "o_o1_03_builds.txt")
CASE = sys.argv[1] if len(sys.argv) > 1 else "hazard"


def get_cifar10_subset(n):
    with open(MARK, "a") as f:
        f.write(f"{os.getpid()}\n")
    return torch.utils.data.TensorDataset(torch.rand(n, 3, 4, 4), torch.arange(n))


class TwoViewDataset(Dataset):
    def __init__(self, base):
        self.base = base

    def __len__(self):
        return len(self.base)

    def __getitem__(self, i):
        x, y = self.base[i]
        return x, x.flip(-1), y


if CASE == "hazard":
    train_dataset = get_cifar10_subset(16)   # <- import-time data build


def simclr_loader():
    base = get_cifar10_subset(16)
    return DataLoader(TwoViewDataset(base), batch_size=8, shuffle=True, num_workers=2)


if __name__ == '__main__':
    if os.path.exists(MARK):
        os.remove(MARK)
    if CASE == "hazard":
        train_dataset = get_cifar10_subset(16)  # rebuilt here to keep the count fair (parent 2 builds + 1 per worker)
    else:
        train_dataset = get_cifar10_subset(16)
    n = sum(1 for _ in simclr_loader())
    pids = open(MARK).read().split()
    print(f"batches={n} builds={len(pids)} distinct_pids={len(set(pids))}")
    print("REPEATED IMPORT-TIME WORK" if len(set(pids)) > 1 else "no repeated work")
