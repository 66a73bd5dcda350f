"""c3 shape 02: a lambda reaches DataLoader workers from a guarded training script (WSP201), with safe twins.

Mimics: Pointnet_Pointnet2_pytorch train_semseg.py (worker_init_fn=lambda inside main(), num_workers=10),
CheXNet model.py (transforms.Lambda(lambda crops: ...) inside main(), num_workers=8); safe twins:
foundation-cancer-image-biomarker (transforms.Lambda(image_as_tensor), a module-level function),
fwdgrad (transforms.Lambda(torch.flatten), a builtin), train_semseg.py model.apply(lambda ...) run in the
parent, CheXNet read_data.py (file opened with `with` in __init__ and closed again).

torchvision is not installed here: `Lambda`/`Compose` below copy torchvision's behaviour (the callable is
kept in an attribute of the transform object, which the dataset keeps).

usage: python c_c3_02_lambda_in_loader.py CASE
cases: worker_init_lambda, transforms_lambda                 (hazards)
       named_function, builtin, parent_lambda, with_open_init (safe)
"""
import os
import sys
import tempfile

import torch
from torch.utils.data import DataLoader, Dataset


class Lambda:  # like torchvision.transforms.Lambda
    def __init__(self, lambd):
        self.lambd = lambd

    def __call__(self, x):
        return self.lambd(x)


class Compose:  # like torchvision.transforms.Compose
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


class ChestXrayDataSet(Dataset):
    def __init__(self, image_list_file=None, transform=None):
        names = []
        if image_list_file:
            with open(image_list_file) as f:  # read and closed: nothing unpicklable is kept
                names = [line.split()[0] for line in f]
        self.names = names or [str(i) for i in range(8)]
        self.transform = transform

    def __len__(self):
        return len(self.names)

    def __getitem__(self, i):
        x = torch.full((2, 3), float(i))
        if self.transform is not None:
            x = self.transform(x)
        return x


def image_as_tensor(x):
    return x * 1.0


def main(case):
    worker_init_fn = None
    transform = None
    list_file = None
    if case == "worker_init_lambda":
        worker_init_fn = lambda x: torch.manual_seed(x)  # noqa: E731  (train_semseg.py L103)
    elif case == "transforms_lambda":
        transform = Compose([Lambda(lambda crops: torch.stack([c for c in crops]))])  # CheXNet L54
    elif case == "named_function":
        transform = Compose([Lambda(image_as_tensor)])
    elif case == "builtin":
        transform = Compose([Lambda(torch.flatten)])
    elif case == "parent_lambda":
        model = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.BatchNorm1d(3))
        model.apply(lambda m: setattr(m, "momentum", 0.1) if isinstance(m, torch.nn.BatchNorm1d) else None)
    elif case == "with_open_init":
        fd, list_file = tempfile.mkstemp(suffix=".txt")
        with os.fdopen(fd, "w") as f:
            f.write("".join(f"img{i}.png 0 1\n" for i in range(8)))
    else:
        raise SystemExit(f"unknown case {case}")
    ds = ChestXrayDataSet(list_file, transform=transform)
    loader = DataLoader(ds, batch_size=4, shuffle=False, num_workers=2, worker_init_fn=worker_init_fn)
    n = sum(1 for _ in loader)
    print(f"[{case}] {n} batches")
    print("RESULT: OK")


if __name__ == "__main__":
    main(sys.argv[1])
