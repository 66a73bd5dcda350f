"""Cases:
  unguarded  - OpenNRE example/train_*.py, MultiTQ train_qa_model.py, deepparse examples:
               top-level script does (heavy) set-up and calls framework.train_model(),
               which iterates a DataLoader(num_workers=2). Expect RuntimeError
               (bootstrapping phase) under spawn; the module-level 'load' runs again in
               each worker first (WSP103 marker).
  guarded    - same, under `if __name__ == "__main__":` (safe twin).
"""
import os, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
from framework import Encoder, SentenceRE

case = sys.argv[1] if len(sys.argv) > 1 else "unguarded"
ROWS = [{'text': 'w' * i, 'label': i % 3} for i in range(16)]


def heavy_load():
    # stands in for torch.load(tkbc checkpoint) / np.load(glove) at import time
    print(f"[pid {os.getpid()}] heavy load at import ({__name__})", flush=True)
    return torch.zeros(10)


if case == "unguarded":
    weights = heavy_load()
    framework = SentenceRE(ROWS, Encoder())
    print("batches seen:", framework.train_model(), flush=True)
    print("OK unguarded finished", flush=True)

if __name__ == "__main__" and case == "guarded":
    weights = heavy_load()
    framework = SentenceRE(ROWS, Encoder())
    print("batches seen:", framework.train_model(), flush=True)
    print("OK guarded finished", flush=True)
