"""r03: transforms.Lambda(lambda) inside Compose stored on a dataset, reaching DataLoader workers
(mnist_forward_forward, sana, cogview4, dinov2 target_transform shapes).

Cases: local = Compose built in main() with Lambda(lambda), dataset wrapped in ConcatDataset+Subset;
main_level = the Compose built at module level inside the __main__ guard (lambda lives in __main__);
attr = Dataset.__init__ stores Compose([Lambda(lambda)]) on self; target = target_transform=lambda;
workers0 = local case with num_workers=0; module_fn = Lambda(module-level function).
"""
import sys

import torch
from torch.utils.data import ConcatDataset, DataLoader, Dataset, Subset

from tvshim import Compose, Lambda


def double(x):
    return x * 2


class Points(Dataset):
    def __init__(self, transform=None, target_transform=None, own_transform=False):
        self.transform = transform
        self.target_transform = target_transform
        if own_transform:
            self.transform = Compose([Lambda(lambda x: x + 1)])

    def __len__(self):
        return 8

    def __getitem__(self, i):
        x, y = torch.tensor(float(i)), i
        if self.transform is not None:
            x = self.transform(x)
        if self.target_transform is not None:
            y = self.target_transform(y)
        return x, y


def run(dataset, workers):
    wrapped = Subset(ConcatDataset([dataset, dataset]), list(range(12)))
    loader = DataLoader(wrapped, batch_size=4, num_workers=workers)
    print("sum", sum(x.sum().item() for x, _ in loader))


def main(case):
    if case in ("local", "workers0"):
        run(Points(transform=Compose([Lambda(lambda x: x * 2)])), 0 if case == "workers0" else 2)
    elif case == "attr":
        run(Points(own_transform=True), 2)
    elif case == "target":
        run(Points(target_transform=lambda _: 0), 2)
    elif case == "module_fn":
        run(Points(transform=Compose([Lambda(double)])), 2)


if __name__ == "__main__":
    if sys.argv[1] == "main_level":
        transform = Compose([Lambda(lambda x: x * 2)])
        run(Points(transform=transform), 2)
    else:
        main(sys.argv[1])
