# usage: o_o1_02_unguarded_loader.py {hazard|fit|safe}; mimics DL_ASSIGNMENT_05_SimCLR_MSDS25051 task scripts
# hazard: dataset + DataLoader(num_workers=2) built and iterated at module level (no main guard)
# safe: the same inside main() under the guard (as that repo's allcode.py)
import sys
import torch
from torch.utils.data import Dataset, DataLoader


class TwoViewTransform:
    def __init__(self, t):
        self.t = t

    def __call__(self, x):
        return self.t(x), self.t(x)


class CIFAR10Split(Dataset):
    def __init__(self, n, transform):
        print("building dataset (import-time work)", flush=True)
        self.data = torch.rand(n, 3, 4, 4)
        self.transform = transform

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        v1, v2 = self.transform(self.data[i])
        return v1, v2, i % 10


def flip(x):
    return x.flip(-1)


CASE = sys.argv[1] if len(sys.argv) > 1 else "hazard"


def main():
    ds = CIFAR10Split(16, TwoViewTransform(flip))
    loader = DataLoader(ds, batch_size=8, shuffle=True, num_workers=2)
    v1, v2, _ = next(iter(loader))
    print("OK", v1.shape)


if CASE == "hazard":
    ssl_dataset = CIFAR10Split(16, TwoViewTransform(flip))
    ssl_loader = DataLoader(ssl_dataset, batch_size=8, shuffle=True, num_workers=2)
    data_iter = iter(ssl_loader)            # <- starts workers at import
    v1, v2, _ = next(data_iter)
    print("OK", v1.shape)

class Trainer:  # stand-in for pl.Trainer (pytorch_lightning is not installed): fit() iterates the loader
    def fit(self, model, train_dataloaders):
        for v1, v2, _ in train_dataloaders:
            model(v1)
        print("OK fit")


if CASE == "fit":  # Self-Supervised-Learning-comparisons resnet18_*_knn.py: top-level trainer.fit(...)
    dataset = CIFAR10Split(16, TwoViewTransform(flip))
    dataloader = DataLoader(dataset, batch_size=8, shuffle=True, drop_last=True, num_workers=2)
    model = torch.nn.Identity()
    trainer = Trainer()
    trainer.fit(model=model, train_dataloaders=dataloader)   # <- starts workers at import

if __name__ == "__main__" and CASE == "safe":
    main()
