# mimics cytoself datamanager/opencell.py const_dataloader(): the default value of `transform` is a tuple whose
# RandomApply holds four lambdas; the tuple is wrapped in Compose and stored on the dataset sent to DataLoader workers.
# cases: hazard (lambdas in the default), safe (module-level rotate functions), parent_only (lambda used in the parent).
import sys
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader


# minimal stand-ins for torchvision.transforms (not installed here): module-level container classes
class _F:
    @staticmethod
    def rotate(x, angle):
        return torch.rot90(x, angle // 90, dims=(-2, -1))


class RandomApply:
    def __init__(self, fns, p=0.5):
        self.fns, self.p = fns, p

    def __call__(self, x):
        if torch.rand(1).item() < self.p:
            for f in self.fns:
                x = f(x)
        return x


class RandomVerticalFlip:
    def __call__(self, x):
        return torch.flip(x, dims=(-2,)) if torch.rand(1).item() < 0.5 else x


class Compose:
    def __init__(self, ts):
        self.ts = ts

    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x


class transforms:
    functional = _F
    RandomApply = RandomApply
    RandomVerticalFlip = RandomVerticalFlip
    Compose = Compose


class PreloadedDataset(Dataset):
    def __init__(self, data, transform=None):
        self.data = data
        self.transform = transform

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        x = self.data[i]
        return self.transform(x) if self.transform is not None else x


def rot0(x):
    return transforms.functional.rotate(x, 0)


def rot90(x):
    return transforms.functional.rotate(x, 90)


class DataManager:
    def const_dataloader(self, num_workers=2, transform=(
            transforms.RandomApply([
                lambda x: transforms.functional.rotate(x, 0),
                lambda x: transforms.functional.rotate(x, 90),
            ]),
            transforms.RandomVerticalFlip())):
        tf = transforms.Compose([torch.from_numpy] + list(transform))
        ds = PreloadedDataset(np.random.rand(8, 2, 10, 10).astype(np.float32), tf)
        self.train_loader = DataLoader(ds, batch_size=4, num_workers=num_workers)


def main(case):
    dm = DataManager()
    if case == "hazard":
        dm.const_dataloader()
    elif case == "safe":
        dm.const_dataloader(transform=(transforms.RandomApply([rot0, rot90]), transforms.RandomVerticalFlip()))
    elif case == "parent_only":
        key = lambda b: b.shape[0]   # used only in the parent
        dm.const_dataloader(transform=(transforms.RandomVerticalFlip(),))
        print("sizes", [key(b) for b in dm.train_loader])
        return
    print(case, "OK", [b.shape[0] for b in dm.train_loader])


if __name__ == "__main__":
    main(sys.argv[1])
