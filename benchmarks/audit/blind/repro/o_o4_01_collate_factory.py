"""o4 shape 01 (t-few src/data/data_module.py:167): a collate_fn made by a factory
(create_collate_fn returns a nested def) handed to DataLoader(num_workers=min(batch, 8)).
Cases: local (hazard: nested function pickled to spawned workers), toplevel (safe twin:
module-level function bound with functools.partial)."""
import functools
import sys

import torch
from torch.utils.data import DataLoader, Dataset


class TemplateDataset(Dataset):
    def __init__(self, n=8):
        self.items = [list(range(i % 4 + 1)) for i in range(n)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def create_collate_fn(pad_token_id):
    def collate_fn(batch):
        width = max(len(x) for x in batch)
        return torch.tensor([x + [pad_token_id] * (width - len(x)) for x in batch])
    return collate_fn


def _collate_top(batch, pad_token_id):
    width = max(len(x) for x in batch)
    return torch.tensor([x + [pad_token_id] * (width - len(x)) for x in batch])


class DataModule:
    def __init__(self, case, num_workers=8, batch_size=4):
        self.case, self.num_workers, self.batch_size = case, num_workers, batch_size
        self.ds = TemplateDataset()

    def train_dataloader(self):
        if self.case == "local":
            collate = create_collate_fn(0)
        else:
            collate = functools.partial(_collate_top, pad_token_id=0)
        return DataLoader(self.ds, batch_size=self.batch_size, collate_fn=collate,
                          num_workers=min([self.batch_size, self.num_workers]))


def main(case):
    dm = DataModule(case, num_workers=2)
    n = sum(1 for _ in dm.train_dataloader())
    print("OK", case, n, "batches")


if __name__ == "__main__":
    main(sys.argv[1])
