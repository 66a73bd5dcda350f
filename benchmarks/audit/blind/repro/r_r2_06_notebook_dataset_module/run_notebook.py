"""Runs the 'notebook cells' below as the __main__ module of `python -c` (no file, like a Jupyter kernel,
so spawned workers cannot re-import the notebook) under the chosen start method.
usage: python run_notebook.py CASE [spawn|fork]   (CASE: safe_module_dataset | hazard_notebook_dataset)"""
import os
import subprocess
import sys

CASE = sys.argv[1]
METHOD = sys.argv[2] if len(sys.argv) > 2 else "spawn"

CELLS = {
    "safe_module_dataset": '''
from image_dataset import ImageDataset            # cell 3 of main.ipynb
import torch
from image_dataset import Normalize   # stands for torchvision transforms.Compose/Normalize (module-level classes)
data_transformer = Normalize(0.5, 0.5)
ds = ImageDataset(8, transform=data_transformer)
trainloader = torch.utils.data.DataLoader(ds, batch_size=2, shuffle=True, num_workers=2)   # cell 44
print("OK safe_module_dataset", sum(x.shape[0] for x, y in trainloader))
''',
    "hazard_notebook_dataset": '''
import torch
from torch.utils.data import Dataset
class NotebookDataset(Dataset):                   # defined in a notebook cell
    def __init__(self, n): self.n = n
    def __len__(self): return self.n
    def __getitem__(self, i): return torch.zeros(3, 4, 4), i % 2
trainloader = torch.utils.data.DataLoader(NotebookDataset(8), batch_size=2, num_workers=2)
print("OK hazard_notebook_dataset", sum(x.shape[0] for x, y in trainloader))
''',
}
code = "import multiprocessing as mp\nmp.set_start_method(%r, force=True)\n" % METHOD + CELLS[CASE]
env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.abspath(__file__)))
r = subprocess.run([sys.executable, "-c", code], text=True, capture_output=True, timeout=60, env=env)
sys.stdout.write(r.stdout)
sys.stderr.write(r.stderr)
sys.exit(r.returncode)
