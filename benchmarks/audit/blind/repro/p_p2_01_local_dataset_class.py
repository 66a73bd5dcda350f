"""Shape of tianchi_lvcai main_inception_v4.py: Dataset classes, a loader function and a
transform class all defined inside main(); DataLoader(num_workers>0) iterated in main().
Cases: local_class (hazard WSP203), local_loader_fn (module-level Dataset keeps a local
function as self.loader: WSP204), local_transform (local transform class in Compose: WSP203),
safe (everything module level), parent_lambda (lambda used by pandas in the parent only: safe)."""
import sys
import torch
from torch.utils.data import Dataset, DataLoader


def top_loader(x):
    return torch.tensor([float(x)])


class TopDataset(Dataset):
    def __init__(self, items, loader=top_loader, transform=None):
        self.items, self.loader, self.transform = items, loader, transform

    def __getitem__(self, i):
        x = self.loader(self.items[i])
        return self.transform(x) if self.transform else x

    def __len__(self):
        return len(self.items)


class TopRotation:
    def __call__(self, x):
        return x + 1


def main(case):
    def default_loader(x):
        return torch.tensor([float(x)])

    class TrainDataset(Dataset):
        def __init__(self, items, loader=default_loader):
            self.items, self.loader = items, loader

        def __getitem__(self, i):
            return self.loader(self.items[i])

        def __len__(self):
            return len(self.items)

    class FixedRotation:
        def __call__(self, x):
            return x + 1

    items = list(range(8))
    if case == "local_class":
        ds = TrainDataset(items)
    elif case == "local_loader_fn":
        ds = TopDataset(items, loader=default_loader)
    elif case == "local_transform":
        ds = TopDataset(items, transform=FixedRotation())
    elif case == "safe":
        ds = TopDataset(items, transform=TopRotation())
    elif case == "parent_lambda":
        ds = TopDataset(items)
        probs = list(map(lambda s: [float(v) for v in s.split(";")], ["0.1;0.9"]))
        print("parent-side lambda ok", probs)
    else:
        raise SystemExit("unknown case")
    loader = DataLoader(ds, batch_size=4, num_workers=2)
    total = sum(float(b.sum()) for b in loader)
    print("OK", case, total)


if __name__ == "__main__":
    main(sys.argv[1])
