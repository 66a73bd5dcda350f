"""Shape: script with no main guard that loads data at import and starts DataLoader
workers from a top-level statement (GraphDeeSmartContract SMVulDetector.py: top-level
`for fold_id` loop; maltorch examples: top-level `model = trainer.train(...)`).
cases: loop (top-level for over folds), call (top-level call that iterates the loader),
guarded (same work under `if __name__ == "__main__":`, safe twin)."""
import sys, os
import torch
from torch.utils.data import DataLoader, Dataset

CASE = sys.argv[1] if len(sys.argv) > 1 else "loop"
MARK = os.environ.get("N3_MARK", "/tmp/n_n3_01_marks.txt")


class GraphData(Dataset):
    def __init__(self, data):
        self.data = data
    def __len__(self):
        return len(self.data)
    def __getitem__(self, i):
        return self.data[i]


def collate_batch(batch):
    return torch.stack(batch)


def read_data():
    # stands for DataReader(...) reading all graph files at import (WSP103)
    with open(MARK, "a") as f:
        f.write(f"read_data pid={os.getpid()} name={__name__}\n")
    return [torch.full((3,), float(i)) for i in range(8)]


class Trainer:
    def train(self, loader):
        total = 0.0
        for x in loader:
            total += float(x.sum())
        return total


def run():
    data = read_data()
    out = []
    for fold in range(2):
        loader = DataLoader(GraphData(data), batch_size=4, num_workers=2, collate_fn=collate_batch)
        out.append(Trainer().train(loader))
    print("result", out)


if CASE == "loop":
    data = read_data()
    result = []
    for fold_id in range(2):                       # top-level statement that starts workers
        loader = DataLoader(GraphData(data), batch_size=4, num_workers=2, collate_fn=collate_batch)
        for x in loader:
            pass
        result.append(fold_id)
    print("result", result)
elif CASE == "call":
    data = read_data()
    loader = DataLoader(GraphData(data), batch_size=4, num_workers=2, collate_fn=collate_batch)
    model = Trainer().train(loader)                # top-level call that iterates the loader
    print("result", model)

if __name__ == "__main__" and CASE == "guarded":
    run()
