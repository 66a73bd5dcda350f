"""a_07: a checkpoint loaded at module level of a script whose DataLoader workers (num_workers=1) are
started from a guarded function (a-PyTorch-Tutorial-to-Image-Captioning eval.py: torch.load at import).

Cases: heavy (module-level load: every spawned worker re-imports the script and loads again; LOADING is
printed once per load), guarded (the load moved into main), no_workers (module-level load in a script
that starts no worker, coral-cnn single-image-prediction: loaded once)."""
import os
import sys
import tempfile

import torch
from torch.utils.data import DataLoader, TensorDataset

CKPT = os.path.join(tempfile.gettempdir(), "audit_blind_a07.pt")
if not os.path.exists(CKPT):
    torch.save({"w": torch.ones(3)}, CKPT)
CASE = sys.argv[1]

if CASE in ("heavy", "no_workers"):
    print("LOADING", flush=True)
    checkpoint = torch.load(CKPT)


def evaluate(workers):
    loader = DataLoader(TensorDataset(torch.arange(4.0)), batch_size=2, num_workers=workers)
    return sum(b.sum().item() for (b,) in loader)


if __name__ == "__main__":
    if CASE == "guarded":
        print("LOADING", flush=True)
        checkpoint = torch.load(CKPT)
    print("sum", evaluate(0 if CASE == "no_workers" else 1) + checkpoint["w"].sum().item())
