"""o4 shape 05 (BARTABSA peng/train.py:74/155, peng/write_results.py:155, wang/train_wang.py:96/190;
peng/data/pipe.py:128): a training script with no main guard builds the data bundle and the model at
top level, then calls trainer.train() whose fastNLP-style Trainer iterates a DataLoader(num_workers=2).
Cases: unguarded (hazard: each spawned worker re-runs the script, rebuilds the data, and starts its
own loader -> bootstrapping RuntimeError), guarded (safe twin), parent_lambda (safe: apply_field-style
lambdas run in the parent while preparing data, and the training runs under the guard)."""
import os
import sys

import torch
from torch.utils.data import DataLoader, Dataset

case = sys.argv[1]


class DataSet(Dataset):
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return torch.tensor(self.rows[i]["src_seq_len"])


def apply_field(rows, func, field, new_field):
    for r in rows:
        r[new_field] = func(r[field])


def get_data():
    print("BUILD data bundle in pid", os.getpid(), flush=True)
    rows = [{"src_tokens": list(range(i + 1))} for i in range(8)]
    apply_field(rows, lambda x: len(x), "src_tokens", "src_seq_len")
    return DataSet(rows)


class Trainer:
    def __init__(self, train_data, batch_size, num_workers):
        self.loader = DataLoader(train_data, batch_size=batch_size, num_workers=num_workers)

    def train(self):
        return sum(1 for _ in self.loader)


if case == "unguarded":
    data_bundle = get_data()                                   # peng/train.py:74 (WSP103)
    trainer = Trainer(data_bundle, batch_size=2, num_workers=2)
    print("OK", case, trainer.train(), "batches")               # peng/train.py:155 (WSP101)

if __name__ == "__main__" and case in ("guarded", "parent_lambda"):
    data_bundle = get_data()
    trainer = Trainer(data_bundle, batch_size=2, num_workers=2)
    print("OK", case, trainer.train(), "batches")
