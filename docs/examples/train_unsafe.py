"""Fit y = 2x + 1 with a tiny PyTorch model: the way many training scripts start out.

It runs on Linux with Python <= 3.13, where DataLoader workers are forked. On Windows, on macOS and on
Linux with Python >= 3.14 the workers are *spawned*: each one re-imports this file and receives the
dataset and the collate function by pickling, and the script crashes (or, with the typo'd guard at the
bottom, silently skips training). `winspawn-lint docs/examples/train_unsafe.py` lists every problem;
train_safe.py is the fixed version.
"""
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
        self.file = open(path)
        self.offsets = []
        self.file.readline()  # header
        offset = self.file.tell()
        for line in self.file:
            self.offsets.append(offset)
            offset += len(line)

    def __len__(self):
        return len(self.offsets)

    def __getitem__(self, index):
        self.file.seek(self.offsets[index])
        x, y = map(float, self.file.readline().split(","))
        return torch.tensor([x]), torch.tensor([y])


torch.manual_seed(0)
dataset = PointsDataset(DATA)
loader = DataLoader(
    dataset,
    batch_size=BATCH_SIZE,
    shuffle=True,
    num_workers=NUM_WORKERS,
    collate_fn=lambda batch: tuple(torch.stack(column) for column in zip(*batch)),
)

model = nn.Linear(1, 1)
if os.path.exists(CHECKPOINT):
    model.load_state_dict(torch.load(CHECKPOINT))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.MSELoss()

# Look at one batch before training.
x, y = next(iter(loader))
print("first batch:", tuple(x.shape), tuple(y.shape))


def train(epochs):
    for _ in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
    print(f"weight={model.weight.item():.2f} bias={model.bias.item():.2f}")


if __name__ == "main":
    train(EPOCHS)
