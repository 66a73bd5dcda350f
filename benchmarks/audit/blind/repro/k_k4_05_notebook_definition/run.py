# Emulates running monocular-depth-example-notebook.ipynb / midas.ipynb in a Jupyter kernel:
# the cells' code runs in __main__, which has no __file__ (a kernel's __main__ cannot be
# re-imported by a spawned worker). NUM_WORKERS = 4 as in the notebooks' cell 5.
# cases: class (DepthDataset defined in a cell, cell 9), function (target_transform defined
# in a cell, cell 7), safe (both imported from depth_data.py, as src/main.py does)
import sys
import torch
from torch.utils.data import DataLoader, Dataset

case = sys.argv[1]
main = sys.modules["__main__"]
for attr in ("__file__",):
    if hasattr(main, attr):
        delattr(main, attr)
main.__spec__ = None

CELL7 = '''
def target_transform(depth):
    return depth.unsqueeze(0)
'''
CELL9 = '''
class DepthDataset(Dataset):
    def __init__(self, n, target_transform=None):
        self.n = n
        self.target_transform = target_transform
    def __len__(self):
        return self.n
    def __getitem__(self, idx):
        depth = torch.full((2, 2), float(idx))
        if self.target_transform:
            depth = self.target_transform(depth)
        return depth
'''
import depth_data
if case == "class":
    exec(CELL9, main.__dict__)
    ds = DepthDataset(4, target_transform=depth_data.target_transform)
elif case == "function":
    exec(CELL7, main.__dict__)
    ds = depth_data.DepthDataset(4, target_transform=target_transform)
else:
    ds = depth_data.DepthDataset(4, target_transform=depth_data.target_transform)

# cell 20/21: main() builds DataLoader(num_workers=NUM_WORKERS) and trains
NUM_WORKERS = 4
loader = DataLoader(ds, batch_size=2, shuffle=True, num_workers=NUM_WORKERS)
print("OK", [tuple(b.shape) for b in loader])
