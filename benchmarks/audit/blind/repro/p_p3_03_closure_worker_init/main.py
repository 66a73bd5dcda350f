"""p3 shape 03 (tutorial_pytorch_japanese 4-quantize_classification main_*.py + utils.py):
worker_init_fn is a closure returned by utils.seed_everything() -> DataLoader(num_workers=16
default) -> WSP202 across two modules. Cases: hazard (closure), safe (module-level function
via functools.partial), parent_lambda (torch.load(map_location=lambda ...) in the parent
only, picklable worker_init)."""
import os
import sys
import tempfile

import torch
from torch.utils.data import DataLoader, TensorDataset

from utils import seed_everything, seed_everything_safe


def load_weight(model, path):
    param = torch.load(path, map_location=lambda storage, loc: storage)
    model.load_state_dict(param)
    return model


if __name__ == "__main__":
    case = sys.argv[1]
    worker_init = seed_everything(1) if case == "hazard" else seed_everything_safe(1)
    model = torch.nn.Linear(3, 2)
    if case == "parent_lambda":
        p = os.path.join(tempfile.gettempdir(), "p_p3_03.pt")
        torch.save(model.state_dict(), p)
        model = load_weight(model, p)
    ds = TensorDataset(torch.randn(16, 3), torch.randint(0, 2, (16,)))
    loader = DataLoader(ds, batch_size=4, shuffle=True, num_workers=2, worker_init_fn=worker_init)
    n = sum(1 for _ in loader)
    print("OK batches", n)
