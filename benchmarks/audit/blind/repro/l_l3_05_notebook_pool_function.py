"""speech-emotion-recognition-iemocap notebook shape: a cell defines save_spectrogram() and
hands it to multiprocessing.Pool(cpu_count()).starmap_async. A kernel's __main__ has no file,
so spawned workers cannot re-import it. We emulate the kernel by running the cell code with
`python -c` (main without __file__, as a Jupyter kernel), with the spawn start method.
cases: hazard (function defined in the 'notebook'), safe_module (function imported from a
.py module next to the notebook), safe_dataloader0 (notebook-defined Dataset class with a
DataLoader that keeps num_workers=0, as DNN_with_MFCC.ipynb cell 25)."""
import os
import subprocess
import sys
import tempfile

HAZARD = r'''
import multiprocessing as mp
mp.set_start_method("spawn", force=True)
def save_spectrogram(y, image_fname, label):
    return "%s-%s-%s" % (y, image_fname, label)
pool = mp.Pool(2)
r = pool.starmap_async(save_spectrogram, [(i, "f%d" % i, "ang") for i in range(4)])
try:
    print("hazard OK", r.get(timeout=20))
except Exception as e:
    print("hazard FAIL", type(e).__name__, e)
    raise SystemExit(1)
finally:
    pool.terminate()
'''

SAFE_MODULE = r'''
import multiprocessing as mp, sys
mp.set_start_method("spawn", force=True)
sys.path.insert(0, MODDIR)
from spec_helpers import save_spectrogram
pool = mp.Pool(2)
r = pool.starmap_async(save_spectrogram, [(i, "f%d" % i, "ang") for i in range(4)])
print("safe_module OK", r.get(timeout=20))
pool.terminate()
'''

SAFE_DL0 = r'''
import multiprocessing as mp
mp.set_start_method("spawn", force=True)
import torch
from torch.utils.data import Dataset, DataLoader
X_train = torch.arange(8.)
class AudioDataset_train(Dataset):
    def __init__(self):
        self.x_data = X_train
    def __getitem__(self, i):
        return self.x_data[i]
    def __len__(self):
        return len(self.x_data)
trainloader = DataLoader(dataset=AudioDataset_train(), batch_size=4, shuffle=True)
print("safe_dataloader0 OK", [b.shape for b in trainloader])
'''

if __name__ == '__main__':
    case = sys.argv[1]
    d = tempfile.mkdtemp()
    with open(os.path.join(d, 'spec_helpers.py'), 'w') as f:
        f.write('def save_spectrogram(y, image_fname, label):\n'
                '    return "%s-%s-%s" % (y, image_fname, label)\n')
    code = {'hazard': HAZARD, 'safe_module': SAFE_MODULE.replace('MODDIR', repr(d)),
            'safe_dataloader0': SAFE_DL0}[case]
    if len(sys.argv) > 2 and sys.argv[2] == 'fork':
        code = code.replace('"spawn"', '"fork"')
    p = subprocess.run([sys.executable, '-c', code], text=True, capture_output=True, timeout=50)
    print(p.stdout[-800:])
    print(p.stderr[-600:])
    sys.exit(p.returncode)
