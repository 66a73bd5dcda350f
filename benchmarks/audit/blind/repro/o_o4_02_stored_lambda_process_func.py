"""o4 shape 02 (sparqling-queries text2qdmr/model/enc_dec.py:228/230 and commands/train.py:246/260):
a dataset built inside a method keeps process_func=lambda item: self.process(...) on itself, and the
loader gets collate_fn=lambda x: x through a kwargs dict with num_workers from config (3).
Cases: dataset_lambda (hazard, WSP204), collate_lambda (hazard, WSP201: dataset is fine, collate is a
lambda), workers0_lambda (safe: lambda collate but num_workers left at 0, like train_eval/val loaders),
named (safe twin: module-level functions)."""
import functools
import sys

import torch
from torch.utils.data import DataLoader, Dataset


class ZippedDataset(Dataset):
    def __init__(self, *components, process_func=None):
        self.process_func = process_func if process_func is not None else _identity
        self.components = components

    def __getitem__(self, idx):
        return self.process_func(tuple(c[idx] for c in self.components))

    def __len__(self):
        return len(self.components[0])


def _identity(x):
    return x


def _process(item, section):
    return (section, item)


class Preproc:
    def process_in_dataloader(self, item, section):
        return (section, item)

    def dataset(self, section, online):
        raw = list(range(8))
        if online:
            return ZippedDataset(raw, process_func=lambda item: self.process_in_dataloader(item, section=section))
        return ZippedDataset(raw, process_func=functools.partial(_process, section=section))


def train(case):
    pre = Preproc()
    ds = pre.dataset("train", online=(case == "dataset_lambda"))
    params = {"batch_size": 2, "num_workers": 0 if case == "workers0_lambda" else 3}
    if case in ("collate_lambda", "workers0_lambda", "dataset_lambda"):
        params["collate_fn"] = lambda x: x
    else:
        params["collate_fn"] = _identity
    n = sum(1 for _ in DataLoader(ds, **params))
    print("OK", case, n, "batches")


if __name__ == "__main__":
    train(sys.argv[1])
