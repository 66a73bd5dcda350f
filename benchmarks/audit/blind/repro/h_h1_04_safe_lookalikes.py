# safe look-alikes labelled in DoDNet / DID-MDN / ganimation_replicate, each with a failing twin.
# cases: lazy_h5py (safe, DID-MDN datasets/classification.py opens h5py.File in __getitem__),
#        eager_h5py (hazard twin: handle opened in __init__),
#        module_collate (safe, DoDNet my_collate is module-level), local_collate (hazard twin),
#        parent_lambda (safe, ganimation GANLoss.loss / get_scheduler lambda_rule stay in the parent)
import sys, os, tempfile, numpy as np, torch, h5py
from torch.utils.data import Dataset, DataLoader

H5 = os.path.join(tempfile.gettempdir(), 'h_h1_04.h5')

class LazyH5(Dataset):
    def __init__(self, path): self.path = path
    def __getitem__(self, i):
        f = h5py.File(self.path, 'r'); x = torch.tensor(f['haze'][i]); f.close(); return x
    def __len__(self): return 8

class EagerH5(Dataset):
    def __init__(self, path): self.f = h5py.File(path, 'r')
    def __getitem__(self, i): return torch.tensor(self.f['haze'][i])
    def __len__(self): return 8

class Plain(Dataset):
    def __getitem__(self, i): return torch.full((3,), float(i))
    def __len__(self): return 8

def my_collate(batch): return torch.stack(batch)

class GANLoss(torch.nn.Module):
    def __init__(self):
        super().__init__(); self.loss = lambda x, y: -torch.mean(x) if y else torch.mean(x)

def main(case):
    with h5py.File(H5, 'w') as f: f['haze'] = np.arange(24, dtype='f4').reshape(8, 3)
    kw = dict(batch_size=4, num_workers=2)
    if case == 'lazy_h5py': dl = DataLoader(LazyH5(H5), **kw)
    elif case == 'eager_h5py': dl = DataLoader(EagerH5(H5), **kw)
    elif case == 'module_collate': dl = DataLoader(Plain(), collate_fn=my_collate, **kw)
    elif case == 'local_collate':
        def local_collate(b): return torch.stack(b)
        dl = DataLoader(Plain(), collate_fn=local_collate, **kw)
    elif case == 'parent_lambda': dl = DataLoader(Plain(), **kw); crit = GANLoss()
    n = 0
    for b in dl:
        n += b.shape[0]
        if case == 'parent_lambda': crit.loss(b, True)
    print('OK', case, n)

if __name__ == '__main__':
    main(sys.argv[1])
