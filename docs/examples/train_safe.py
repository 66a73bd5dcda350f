"""Fit y = 2x + 1 with a tiny PyTorch model: train_unsafe.py made spawn-safe.

What changed (each a winspawn-lint finding in train_unsafe.py):
- everything that starts DataLoader workers or loads a checkpoint runs in main(), called under a correct
  `if __name__ == "__main__":` guard that begins with freeze_support() (WSP101, WSP102, WSP103);
- the collate function is a module-level function, which pickles by name (WSP201);
- the dataset opens its file lazily, in each worker, instead of in __init__ (WSP301);
- persistent_workers=True: a spawned worker is slow to start (it imports torch again), so keep the
  workers alive across epochs instead of starting new ones every epoch.

Run it as Windows or macOS would: `python -m winspawn_lint.spawnrun docs/examples/train_safe.py`.
"""
import multiprocessing
import os

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "points.csv")
CHECKPOINT = os.path.join(HERE, "checkpoint.pt")
BATCH_SIZE = 8
NUM_WORKERS = 2
EPOCHS = 60


class PointsDataset(Dataset):
    """Rows of `x,y` from a CSV file, read on demand."""

    def __init__(self, path):
        self.path = path
        self.file = None  # opened on first use, in the process that reads (each DataLoader worker)
        self.offsets = []
        with open(path) as file:
            file.readline()  # header
            offset = file.tell()
            for line in file:
                self.offsets.append(offset)
                offset += len(line)

    def __len__(self):
        return len(self.offsets)

    def __getitem__(self, index):
        if self.file is None:
            self.file = open(self.path)
        self.file.seek(self.offsets[index])
        x, y = map(float, self.file.readline().split(","))
        return torch.tensor([x]), torch.tensor([y])


def stack_columns(batch):
    return tuple(torch.stack(column) for column in zip(*batch))


def train(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.MSELoss()
    for _ in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
    print(f"weight={model.weight.item():.2f} bias={model.bias.item():.2f}")


def main():
    torch.manual_seed(0)
    loader = DataLoader(
        PointsDataset(DATA),
        batch_size=BATCH_SIZE,
        shuffle=True,
        num_workers=NUM_WORKERS,
        collate_fn=stack_columns,
        persistent_workers=True,
    )
    model = nn.Linear(1, 1)
    if os.path.exists(CHECKPOINT):
        model.load_state_dict(torch.load(CHECKPOINT))

    # Look at one batch before training.
    x, y = next(iter(loader))
    print("first batch:", tuple(x.shape), tuple(y.shape))
    train(model, loader, EPOCHS)


if __name__ == "__main__":
    multiprocessing.freeze_support()
    main()
