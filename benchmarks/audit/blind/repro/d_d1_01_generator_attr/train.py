"""Shape d_d1_01 (YOLOP): a Dataset keeps a generator (Path.iterdir()) in __init__ of a base class in another
module; tools/train.py hands it to DataLoader(num_workers=cfg.WORKERS=8 -> 2 here).
cases: generator (hazard), listed (safe twin), parent_thread (LoadStreams threads iterated in the parent),
parent_lambda (LambdaLR lambda, parent only)."""
import math
import os
import sys
import tempfile

import torch
from torch.utils.data import DataLoader

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib.bdd import BddDataset
from lib.streams import LoadStreams

WORKERS = 2


def make_root():
    root = tempfile.mkdtemp()
    for i in range(6):
        open(os.path.join(root, f"m{i}.png"), "w").close()
    return root


def main(case):
    if case in ("generator", "listed"):
        ds = BddDataset(make_root(), listed=(case == "listed"))
        loader = DataLoader(ds, batch_size=2, num_workers=WORKERS)
        n = sum(b.numel() for b in loader)
        print("OK items", n)
    elif case == "parent_thread":
        for frames in LoadStreams():
            pass
        print("OK frames", frames)
    elif case == "parent_lambda":
        model = torch.nn.Linear(2, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        lf = lambda x: ((1 + math.cos(x * math.pi / 10)) / 2) * 0.9 + 0.1
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda=lf)
        ds = BddDataset(make_root(), listed=True)
        for _ in range(2):
            for b in DataLoader(ds, batch_size=2, num_workers=WORKERS):
                pass
            sched.step()
        print("OK lr", opt.param_groups[0]["lr"])
    else:
        raise SystemExit("unknown case " + case)


if __name__ == "__main__":
    main(sys.argv[1])
