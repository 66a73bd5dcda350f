"""Shape d_d1_05 (RobustLoc, pytorch-semantic-segmentation): a lambda wrapped in transforms.Lambda (alone or
inside a Compose) built in main() of the training script becomes the transform / target_transform of a Dataset
defined in another module, iterated by DataLoader(num_workers=nThreads 6 / 4 -> 2).
cases: target_lambda (hazard: RobustLoc train.py:76), compose_lambda (hazard: semseg train.py:60),
restore_parent (a second Compose with a lambda used only in the parent: safe), argv_global (no lambda;
the worker reads the module-level opt parsed from sys.argv, re-parsed in each spawned child: safe)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
from torch.utils.data import DataLoader
import mini_transforms as T
from data.dataloaders import RobotCar, opt


def main():
    case = opt.case
    kwargs = {"num_workers": opt.nThreads}
    restore = T.Compose([T.Scale(1.0), T.Lambda(lambda x: x / 255)])
    if case == "target_lambda":
        ds = RobotCar(transform=T.Compose([T.Scale(2.0)]),
                      target_transform=T.Lambda(lambda x: torch.from_numpy(x).float()))
    elif case == "compose_lambda":
        ds = RobotCar(transform=T.Compose([T.Scale(2.0), T.Lambda(lambda x: x.mul_(255))]))
    elif case in ("restore_parent", "argv_global"):
        ds = RobotCar(transform=T.Compose([T.Scale(2.0)]))
    else:
        raise SystemExit("unknown case " + case)
    total = 0.0
    for img, target in DataLoader(ds, batch_size=2, shuffle=False, **kwargs):
        total += float(img.sum())
        if case == "restore_parent":
            total += float(restore(img).sum())
    print("OK total", total, "cropsize", opt.cropsize)


if __name__ == "__main__":
    main()
