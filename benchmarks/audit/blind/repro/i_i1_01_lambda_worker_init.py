"""Shape (GNT train.py:69 / eval.py:68): inside train(args) a DataLoader gets
worker_init_fn=lambda _: np.random.seed(), num_workers=args.workers (default 8; 2 here).
The script itself is guarded.  Cases: hazard (lambda), safe (module-level function)."""
import sys
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class RayDataset(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.tensor([i], dtype=torch.float32)


def seed_worker(_):
    np.random.seed()


def train(case, workers=2):
    if case == "hazard":
        wif = lambda _: np.random.seed()
    else:
        wif = seed_worker
    loader = DataLoader(RayDataset(), batch_size=1, worker_init_fn=wif, num_workers=workers)
    n = sum(1 for _ in loader)
    print("OK batches", n)


if __name__ == "__main__":
    train(sys.argv[1])
