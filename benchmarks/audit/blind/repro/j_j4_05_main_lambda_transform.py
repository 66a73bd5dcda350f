"""Shape: RKD run.py: a lambda written at module level of the script, wrapped in a Lambda transform inside a
Compose that the dataset keeps (test_transform), iterated by DataLoader(num_workers=8).
Cases: hazard (module-level lambda in __main__), safe (named function), in_worker (lambdas built inside
__call__, as px-ntk-pruning seg_transform ExtColorJitter.get_params does), dead_branch (the lambda branch is
guarded by `args.tencrop == 'True'` with a store_true flag, as Attributional-Robustness util_loader.py)."""
import sys, random
import torch
from torch.utils.data import DataLoader, Dataset

class Lambda:
    def __init__(self, f): self.f = f
    def __call__(self, x): return self.f(x)

class Compose:
    def __init__(self, ts): self.ts = ts
    def __call__(self, x):
        for t in self.ts: x = t(x)
        return x

class Jitter:  # builds its lambdas at call time, inside the worker
    def __call__(self, x):
        k = random.uniform(0.9, 1.1)
        return Compose([Lambda(lambda v: v * k)])(x)

class Tiny(Dataset):
    def __init__(self, transform): self.transform = transform
    def __len__(self): return 8
    def __getitem__(self, i): return self.transform(torch.tensor([float(i)]))

def scale(x): return x * 255.0

class Args: tencrop = True   # store_true flag: a bool

CASE = sys.argv[1] if len(sys.argv) > 1 else "hazard"
if CASE == "hazard":
    normalize = Compose([Lambda(lambda x: x * 255.0)])
elif CASE == "safe":
    normalize = Compose([Lambda(scale)])
elif CASE == "in_worker":
    normalize = Compose([Jitter()])
elif CASE == "dead_branch":
    args = Args()
    if args.tencrop == 'True':
        normalize = Compose([Lambda(lambda x: x * 255.0)])
    else:
        normalize = Compose([Lambda(scale)])

if __name__ == "__main__":
    dl = DataLoader(Tiny(normalize), batch_size=4, num_workers=2)
    print("total", sum(float(b.sum()) for b in dl))
