"""Like Time-Series-Library data_provider/data_factory.py: the loader factory builds the collate
function as a lambda over a module-level collate_fn (classification branch)."""
from functools import partial

import pandas as pd
import torch
from torch.utils.data import DataLoader, Dataset


def collate_fn(data, max_len=None):
    xs = [torch.as_tensor(d[0]) for d in data]
    return torch.stack(xs)[:, :max_len], torch.tensor([d[1] for d in data])


class UEAloader(Dataset):
    def __init__(self):
        df = pd.DataFrame({"date": pd.date_range("2020-01-01", periods=8, freq="h")})
        # parent-side lambdas while reading the data (data_loader.py:84 pattern): never sent
        df["month"] = df.date.apply(lambda row: row.month)
        self.values = [[float(i)] * 5 for i in range(len(df))]

    def __len__(self):
        return len(self.values)

    def __getitem__(self, i):
        return self.values[i], i


def data_provider(args, flag, style="lambda"):
    data_set = UEAloader()
    if style == "lambda":
        collate = lambda x: collate_fn(x, max_len=args.seq_len)
    else:
        collate = partial(collate_fn, max_len=args.seq_len)
    return data_set, DataLoader(data_set, batch_size=2, num_workers=args.num_workers, collate_fn=collate)
