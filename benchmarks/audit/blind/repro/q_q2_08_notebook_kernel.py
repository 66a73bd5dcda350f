"""q2 shape 08: notebook cells run in a kernel whose __main__ has no file (Bayesian-Neural-Networks notebooks).
The cells are executed with `python -c` under an explicit spawn start method, as a Jupyter kernel on Windows/macOS.
cases:
  importable_dataset - cells define Datafeed/KMNIST-like classes that never reach a worker; the DataLoader
                       (num_workers=3) wraps an importable dataset (TensorDataset stands in for datasets.MNIST): safe
  notebook_class     - contrast (not a labelled row): a cell-defined Dataset is handed to the workers: fails
(the fork case runs the same cells with the fork start method)."""
import subprocess
import sys

CELLS = r'''
import multiprocessing as mp
mp.set_start_method(METHOD, force=True)
import torch
from torch.utils import data

class Datafeed(data.Dataset):                 # cell 7: defined, never used by a loader
    def __init__(self, x, y, transform=None):
        self.x, self.y, self.transform = x, y, transform
    def __getitem__(self, i):
        return self.x[i], self.y[i]
    def __len__(self):
        return len(self.x)

class KMNIST(data.TensorDataset):             # KFAC cell 55: defined, the loader uses another dataset
    pass

trainset = data.TensorDataset(torch.randn(24, 1, 4, 4), torch.randint(0, 10, (24,)))
if CASE == "notebook_class":
    trainset = Datafeed(torch.randn(24, 1, 4, 4), torch.randint(0, 10, (24,)))
trainloader = torch.utils.data.DataLoader(trainset, batch_size=8, shuffle=True, pin_memory=False, num_workers=3)
n = 0
for i in range(2):
    for x, y in trainloader:
        n += 1
print("OK batches", n)
'''

if __name__ == "__main__":
    case = sys.argv[1] if len(sys.argv) > 1 else "importable_dataset"
    method = sys.argv[2] if len(sys.argv) > 2 else "spawn"
    code = "CASE=%r\nMETHOD=%r\n" % (case, method) + CELLS
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    out = (r.stdout + r.stderr).strip().splitlines()
    keep = [l for l in out if "Error" in l or "OK" in l or "get attribute" in l]
    print("\n".join(keep[:1] + keep[-1:]) or "\n".join(out[-3:]))
