"""Shape: heavy work at import time (dataset files read, checkpoint torch.load) in a script whose
DataLoader workers re-import it under spawn (BadLabels eval_badlabels/LNL/t_revision.py: guarded main(),
but train_data = cifar_dataset_split(...) at module level reads all CIFAR batches; SSKD student.py:
torch.load(ckpt) at module level).
Cases: import_work (hazard: the load runs again in each of the 2 workers), guarded_work (safe twin).
Each load appends a line to a counter file; the script prints how many loads happened.
"""
import os
import sys
import tempfile
import torch
from torch.utils.data import TensorDataset, DataLoader

COUNTER = os.path.join(tempfile.gettempdir(), "k_k3_04_counter.txt")
CKPT = os.path.join(tempfile.gettempdir(), "k_k3_04_ckpt.pt")
case = sys.argv[1]


def load_data():
    with open(COUNTER, "a") as f:
        f.write("load %d\n" % os.getpid())
    return torch.load(CKPT)


if case == "import_work":
    train_data = TensorDataset(load_data())     # hazard line (module level)


def main():
    global train_data
    if case == "guarded_work":
        train_data = TensorDataset(load_data())
    loader = DataLoader(train_data, batch_size=4, num_workers=2)
    for _ in loader:
        pass
    n = len(open(COUNTER).read().splitlines())
    print("OK", case, "loads:", n)


if __name__ == "__main__":
    main()
