"""eval.py shape: torch.load(checkpoint) and `for name in names: DataLoader(num_workers=4) ... for batch in loader` at module level.
WSP103 (checkpoint load repeated in each worker) + WSP101 (workers started at import -> bootstrapping RuntimeError under spawn)."""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
from torch.utils.data import DataLoader
from srdata import SRDataset, make_ckpt

print("loading checkpoint in pid", os.getpid(), __name__, flush=True)
model = torch.load(make_ckpt(), weights_only=False)["generator"]

for name in ["Set5", "Set14"]:
    loader = DataLoader(SRDataset(), batch_size=2, num_workers=2)
    n = sum(1 for _ in loader)
print("OK unguarded", n)
