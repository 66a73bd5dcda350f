"""Mimics a notebook kernel (pneumo notebooks): cells are exec'd into __main__ at run time,
so a worker that re-imports the script never sees names the cells defined.
Cases: pkg_class_spawn_ctx (Dataset from an importable module, num_workers=3,
multiprocessing_context='spawn': safe), nb_class_0_workers (Dataset defined in a cell, num_workers=0:
safe), nb_class_workers (Dataset defined in a cell, num_workers=2: WSP206 hazard)."""
import sys

CELL_CLASS = '''
import torch
from torch.utils.data import Dataset
class TestDataset(Dataset):
    def __init__(self, n=8): self.n = n
    def __getitem__(self, i): return torch.tensor([float(i)])
    def __len__(self): return self.n
'''

if __name__ == "__main__":
    case = sys.argv[1]
    from torch.utils.data import DataLoader
    if case == "pkg_class_spawn_ctx":
        import pkgdata
        dl = DataLoader(pkgdata.PneumoDataset(), batch_size=4, num_workers=3, multiprocessing_context="spawn")
    else:
        exec(CELL_CLASS, globals())
        nw = 0 if case == "nb_class_0_workers" else 2
        dl = DataLoader(TestDataset(), batch_size=4, num_workers=nw)
    print("OK", case, sum(float(b.sum()) for b in dl))
