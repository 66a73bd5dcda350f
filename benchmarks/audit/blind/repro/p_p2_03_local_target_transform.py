"""Shape of pytorch-playground svhn/dataset.py: get() defines target_transform locally and a
torchvision-style dataset keeps it as an attribute; DataLoader(num_workers=1).
Cases: local_def (WSP204), module_def (safe: module-level function)."""
import sys
import torch
from torch.utils.data import Dataset, DataLoader


class SVHNLike(Dataset):
    def __init__(self, target_transform=None):
        self.labels = list(range(1, 9))
        self.target_transform = target_transform

    def __getitem__(self, i):
        y = self.labels[i]
        return torch.zeros(1), (self.target_transform(y) if self.target_transform else y)

    def __len__(self):
        return len(self.labels)


def module_target_transform(target):
    return int(target) - 1


def get(case, **kwargs):
    num_workers = kwargs.setdefault("num_workers", 1)

    def target_transform(target):
        return int(target) - 1

    tt = target_transform if case == "local_def" else module_target_transform
    return DataLoader(SVHNLike(target_transform=tt), batch_size=4, **kwargs)


if __name__ == "__main__":
    loader = get(sys.argv[1], num_workers=1)
    print("OK", sys.argv[1], [y.tolist() for _, y in loader])
