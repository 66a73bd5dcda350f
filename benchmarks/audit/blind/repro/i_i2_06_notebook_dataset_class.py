"""Shape of erinqhu/EEG-motor-imagery code/main_training_3GCN.ipynb: class EEGDataset is defined in a
notebook cell, instances go to DataLoader(num_workers=2) and train() iterates the loader.  A notebook's
__main__ has no file, so a spawned worker cannot import the class ("Can't get attribute 'EEGDataset' on
<module '__main__'>").  The notebook is emulated by running the cell code with `python -c` (a __main__
without __file__), using the start method this script runs under (spawn under spawnrun, fork under
plain python).
Cases: hazard (class defined in the notebook), imported (safe twin: the class lives in an importable
module), model_class (safe: a notebook-defined nn.Module class used only in the parent, like cell 4 GCN,
with workers=0 for data), np_load_lambda (safe: notebook lambda monkey-patching np.load, no worker)."""
import multiprocessing as mp
import os
import subprocess
import sys
import tempfile

CASE = sys.argv[1]
METHOD = mp.get_start_method()

CELL_CLASS = '''
import torch
from torch.utils.data import Dataset
class EEGDataset(Dataset):
    def __init__(self, n):
        self.x = torch.arange(float(n))
    def __len__(self):
        return len(self.x)
    def __getitem__(self, i):
        return self.x[i]
'''
HEAD = f'''
import multiprocessing as mp
mp.set_start_method({METHOD!r}, force=True)
import numpy as np, torch
from torch.utils.data import DataLoader
'''
LOOP = '''
loader = DataLoader(tr_dataset, batch_size=2, shuffle=True, num_workers=2)
def train():
    for batch in loader:
        pass
train()
print("OK")
'''
tmp = tempfile.mkdtemp()
env = dict(os.environ)
if CASE == "hazard":
    code = HEAD + CELL_CLASS + "tr_dataset = EEGDataset(8)\n" + LOOP
elif CASE == "imported":
    with open(os.path.join(tmp, "eegmod.py"), "w") as f:
        f.write(CELL_CLASS)
    env["PYTHONPATH"] = tmp + os.pathsep + env.get("PYTHONPATH", "")
    code = HEAD + "from eegmod import EEGDataset\ntr_dataset = EEGDataset(8)\n" + LOOP
elif CASE == "model_class":
    code = HEAD + '''
class GCN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(1, 1)
    def forward(self, x):
        return self.lin(x)
model = GCN()
loader = DataLoader(torch.arange(8.0), batch_size=2, num_workers=2)
for b in loader:
    model(b.view(-1, 1))
print("OK")
'''
elif CASE == "np_load_lambda":
    code = HEAD + '''
np_load_old = np.load
np.load = lambda *a, **k: np_load_old(*a, allow_pickle=True, **k)
print("OK")
'''
r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
print(r.stdout.strip()[-200:])
err = r.stderr.strip()
print(err[:700] + "\n...\n" + err[-300:] if len(err) > 1000 else err)
print(CASE, METHOD, "rc", r.returncode)
