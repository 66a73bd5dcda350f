"""j3 shape 04 (few-shot experiments/*.py): the whole experiment script is top level; datasets
are built, DataLoader(num_workers=4) created and fit() iterates it at import.
cases: unguarded (hazard), guarded (safe), df_apply_lambda (safe: lambda only used in the
dataset's __init__, guarded script)."""
import sys
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader


class Tiny(Dataset):
    def __init__(self, apply_lambda=False):
        ids = list(range(8))
        if apply_lambda:
            ids = list(map(lambda c: c * 1, ids))  # used in __init__ only, not stored
        self.data = np.array(ids, dtype=np.float32)

    def __getitem__(self, i):
        return torch.tensor(self.data[i])

    def __len__(self):
        return len(self.data)


def fit(dataloader):
    return sum(1 for _ in dataloader)


CASE = sys.argv[1] if len(sys.argv) > 1 else "unguarded"
if CASE not in ("unguarded", "guarded", "df_apply_lambda"):
    raise SystemExit("unknown case")

background = Tiny(apply_lambda=(CASE == "df_apply_lambda"))
loader = DataLoader(background, batch_size=2, num_workers=4)

if CASE == "unguarded":
    print("OK", CASE, fit(loader), "batches")

if __name__ == "__main__" and CASE != "unguarded":
    print("OK", CASE, fit(loader), "batches")
