import pandas as pd
import torch
from torch.utils.data import DataLoader, Dataset


def collate_fn(batch, max_len):
    return torch.stack([b[:max_len] for b in batch])


class UEAloader(Dataset):
    def __init__(self):
        df = pd.DataFrame({"date": pd.date_range("2020", periods=8, freq="h")})
        # safe: lambdas consumed by pandas in the parent (data_loader.py:73)
        self.month = df.date.apply(lambda row: row.month).values
        self.x = torch.arange(32.0).reshape(8, 4)

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return self.x[i]


def data_provider(args, task_name):
    data_set = UEAloader()
    if task_name == "classification":
        return DataLoader(data_set, batch_size=2, num_workers=args["num_workers"],
                          collate_fn=lambda x: collate_fn(x, max_len=args["seq_len"]))
    return DataLoader(data_set, batch_size=2, num_workers=args["num_workers"])
