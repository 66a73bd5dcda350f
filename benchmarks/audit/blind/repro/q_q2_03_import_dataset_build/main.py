"""q2 shape 03: guarded main.py imports data.py, which builds the dataset at import; each spawned worker
re-imports main.py and so data.py, rebuilding it (pytorch-classification-uncertainty data.py:6; safe twin: build in a function).
cases: hazard, safe. Prints how many times the dataset was built."""
import os
import sys

case = sys.argv[1] if len(sys.argv) > 1 else "hazard"
os.environ.setdefault("Q2_03_CASE", case)
import data


def train_model(dataloaders):
    n = 0
    for epoch in range(2):
        for x, y in dataloaders["train"]:
            n += 1
    return n


if __name__ == "__main__":
    if os.path.exists(data.LOG):
        os.remove(data.LOG) if case == "safe" else None
    dls = data.dataloaders if case == "hazard" else data.get_dataloaders()
    n = train_model(dls)
    with open(data.LOG) as f:
        builds = len(f.readlines())
    print("OK batches", n, "dataset builds", builds)
    os.remove(data.LOG)
