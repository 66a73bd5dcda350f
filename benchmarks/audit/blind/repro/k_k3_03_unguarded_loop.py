"""Shape: a top-level training script (no main guard) whose loop iterates a DataLoader with workers
(BadLabels eval_badlabels/LNL/standard_training.py, dividemix.py, promix.py, rog.py,
gen_badlabels/badlabels.py; SSKD teacher.py, student.py). The loader comes from a project module
(loader/dataloader.py's cifar_dataloader.run) in the BadLabels case.
Cases: unguarded (hazard), via_function (hazard: top-level call of a function that iterates),
guarded (safe twin: same code under `if __name__ == "__main__":`, as t_revision.py / suncet main.py).
"""
import sys
import torch
from torch.utils.data import TensorDataset, DataLoader

case = sys.argv[1]
ds = TensorDataset(torch.arange(16, dtype=torch.float32))


class cifar_dataloader:
    def __init__(self, num_workers):
        self.num_workers = num_workers

    def run(self, mode):
        return DataLoader(ds, batch_size=4, shuffle=(mode == "warmup"), num_workers=self.num_workers)


loader = cifar_dataloader(num_workers=2)


def warmup(epoch, dataloader):
    return sum(float(b[0].sum()) for b in dataloader)


if case == "unguarded":
    train_loader = loader.run("warmup")
    for epoch in range(1):
        for (x,) in train_loader:          # hazard line
            pass
    print("OK unguarded")
elif case == "via_function":
    for epoch in range(1):
        warmup(epoch, loader.run("warmup"))   # hazard line
    print("OK via_function")

if __name__ == "__main__" and case == "guarded":
    for (x,) in loader.run("warmup"):
        pass
    print("OK guarded")
