# mimics data_provider/data_factory.py: data_provider(args, flag) builds a DataLoader
# whose collate_fn is a lambda defined inside the function (TSL-style classification branch)
import functools
import torch
from torch.utils.data import DataLoader, Dataset


class UEAloader(Dataset):
    def __init__(self, n=8):
        self.x = [torch.randn(3 + i % 3, 2) for i in range(n)]
        self.y = [i % 2 for i in range(n)]

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def collate_fn(batch, max_len):
    xs = torch.zeros(len(batch), max_len, 2)
    for k, (x, _) in enumerate(batch):
        xs[k, :x.shape[0]] = x[:max_len]
    return xs, torch.tensor([y for _, y in batch])


def data_provider(args, flag):
    ds = UEAloader()
    if args.case == "hazard":
        cf = lambda x: collate_fn(x, max_len=args.seq_len)
    else:  # safe twin: picklable partial of a module-level function
        cf = functools.partial(collate_fn, max_len=args.seq_len)
    return ds, DataLoader(ds, batch_size=4, num_workers=args.num_workers, collate_fn=cf)
