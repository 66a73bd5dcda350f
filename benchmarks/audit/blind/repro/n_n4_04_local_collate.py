"""n4 shape 04: collate_fn defined inside the function that builds the loaders
(PCB-defect-detection architecture/train.py create_datasets_and_loaders, num_workers=2),
script guarded. Cases: hazard (local collate_fn), safe (module-level collate_fn),
safe_zero (local collate_fn but num_workers=0).
"""
import sys
import torch
from torch.utils.data import DataLoader, Dataset


class Det(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return torch.zeros(3, 4, 4), {"boxes": torch.zeros(i % 3, 4)}


def collate_top(batch):
    return tuple(zip(*batch))


def create_loaders(case, num_workers=2):
    def collate_fn(batch):
        return tuple(zip(*batch))
    if case == "safe":
        fn = collate_top
    else:
        fn = collate_fn
    if case == "safe_zero":
        num_workers = 0
    return DataLoader(Det(), batch_size=2, shuffle=True, collate_fn=fn, num_workers=num_workers)


if __name__ == "__main__":
    case = sys.argv[1] if len(sys.argv) > 1 else "hazard"
    n = sum(len(b[0]) for b in create_loaders(case))
    print("OK", n)
