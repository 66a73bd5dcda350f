"""Shape: px-ntk-pruning datasets/utils.py: a DataLoader subclass defines seed_worker inside __init__ and passes
it as worker_init_fn; the loader is built in another module with num_workers=CONFIG.num_workers (default 4).
Cases: hazard (local seed_worker), safe (module-level seed_worker), nondeterministic (branch skipped)."""
import sys, random
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

class Tiny(Dataset):
    def __len__(self): return 8
    def __getitem__(self, i): return torch.tensor([float(i)])

def seed_worker_global(worker_id):
    s = torch.initial_seed() % 2**32
    np.random.seed(s); random.seed(s)

class SeededDataLoader(DataLoader):
    def __init__(self, dataset, local=True, deterministic=True, **kw):
        worker_init_fn = None
        if deterministic:
            if local:
                def seed_worker(worker_id):
                    s = torch.initial_seed() % 2**32
                    np.random.seed(s); random.seed(s)
                worker_init_fn = seed_worker
            else:
                worker_init_fn = seed_worker_global
        super().__init__(dataset, worker_init_fn=worker_init_fn, **kw)

if __name__ == "__main__":
    case = sys.argv[1] if len(sys.argv) > 1 else "hazard"
    dl = SeededDataLoader(Tiny(), local=(case == "hazard"), deterministic=(case != "nondeterministic"),
                          batch_size=4, num_workers=2)
    print("total", sum(float(b.sum()) for b in dl))
