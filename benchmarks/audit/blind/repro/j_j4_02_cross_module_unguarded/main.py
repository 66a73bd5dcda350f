"""Shape: weight_share.py / SRAD main.py: the script loads a model at import (torch.load) and calls a helper in
another project module that iterates a DataLoader with workers, from top-level code.
Cases: hazard (unguarded), safe (guarded), no_workers (unguarded but helper called with use_cuda=False -> 0 workers)."""
import os, sys, tempfile
import torch
import util

CASE = sys.argv[1] if len(sys.argv) > 1 else "hazard"
ckpt = os.path.join(tempfile.gettempdir(), "j_j4_02_model.pt")

def run(use_cuda):
    if not os.path.exists(ckpt):
        torch.save(torch.nn.Linear(1, 1), ckpt)
    model = torch.load(ckpt, weights_only=False)   # import-time heavy work (WSP103 shape)
    print("acc", util.test(model, use_cuda))

if CASE == "hazard":
    run(True)
elif CASE == "no_workers":
    run(False)
elif CASE == "safe":
    if __name__ == "__main__":
        run(True)
