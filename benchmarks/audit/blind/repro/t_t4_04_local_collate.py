"""birder train.py-like: a collate_fn defined inside train() when mixup is on.
Cases: hazard (local collate, num_workers=2), no_mixup (collate_fn=None)."""
import sys
import torch
from torch.utils.data import DataLoader, TensorDataset, default_collate


class Mix:
    def __call__(self, x, y):
        return x.flip(0) * 0.5 + x * 0.5, y


def train(mixup):
    ds = TensorDataset(torch.arange(8.0), torch.arange(8))
    if mixup:
        t = Mix()

        def collate_fn(batch):
            return t(*default_collate(batch))
    else:
        collate_fn = None
    dl = DataLoader(ds, batch_size=2, num_workers=2, collate_fn=collate_fn)
    print(sum(b[0].sum().item() for b in dl))


if __name__ == "__main__":
    train(sys.argv[1] == "hazard")
    print("OK", sys.argv[1])
