"""like miniimagenet_train.py: guarded main, DataLoader(num_workers=1) over data.MiniSet.
cases: lambda_transform (hazard), named_transform (safe), parent_lambda (safe: lambda used by map in the parent)."""
import sys
import torch
from torch.utils.data import DataLoader
from data import MiniSet


def main(case):
    if case == "lambda_transform":
        ds = MiniSet("train", use_lambda=True)
    elif case in ("named_transform", "parent_lambda"):
        ds = MiniSet("train", use_lambda=False)
    else:
        raise SystemExit("unknown case")
    if case == "parent_lambda":
        w = [torch.ones(2), torch.ones(2)]
        fast = list(map(lambda p: p * 0.5, w))  # like meta.py fast_weights: parent only
        assert len(fast) == 2
    db = DataLoader(ds, 2, shuffle=True, num_workers=1)
    print("OK", case, sum(1 for _ in db), "batches")


if __name__ == "__main__":
    main(sys.argv[1])
