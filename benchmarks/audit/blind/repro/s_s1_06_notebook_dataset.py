"""Notebook-defined Dataset handed to DataLoader workers (LLMs-from-scratch appendix-A
code-part2.ipynb cells 12-15) vs the same with num_workers=0 (code-part1.ipynb, ch02/ch07).
A notebook kernel's __main__ has no file, so spawned workers cannot re-import it. This script
emulates that by running the cell code with `python -c` (no main file, like a kernel) in a child interpreter that uses
the start method this outer process was given (spawn under spawnrun, fork under plain python).
Cases: notebook_workers1 (hazard), notebook_workers0 (safe twin)."""
import multiprocessing as mp
import subprocess
import sys

CELLS = r'''
import multiprocessing as mp, torch
mp.set_start_method(%(method)r, force=True)
from torch.utils.data import Dataset, DataLoader

class ToyDataset(Dataset):          # code-part2.ipynb cell 12
    def __init__(self, X, y):
        self.features, self.labels = X, y
    def __getitem__(self, i):
        return self.features[i], self.labels[i]
    def __len__(self):
        return self.labels.shape[0]

X = torch.randn(5, 2); y = torch.tensor([0, 0, 0, 1, 1])
loader = DataLoader(ToyDataset(X, y), batch_size=2, shuffle=True, num_workers=%(workers)d, drop_last=True)
print("batches:", sum(1 for _ in loader))   # cell 15 training loop
print("OK")
'''

if __name__ == "__main__":
    case = sys.argv[1]
    method = mp.get_start_method()
    workers = 1 if case == "notebook_workers1" else 0
    r = subprocess.run([sys.executable, "-c", CELLS % {"method": method, "workers": workers}],
                       text=True, capture_output=True, timeout=50)
    out = (r.stdout + r.stderr).strip().splitlines()
    err = [l for l in out if l.startswith(("AttributeError", "TypeError", "PicklingError"))] or [l for l in out if "Error" in l]
    print(f"start method {method}; inner exit {r.returncode}; " + (err[-1] if err else out[-1]))
    sys.exit(r.returncode)
