"""e3 shape 02: Dataset and transform classes defined in notebook cells, DataLoader(num_workers=2)
iterated in a later cell (deepsleep2 deep_sleep2.ipynb cells 13/15/19/23; NUM_WORKERS=2 from the
model's hyperparameters.txt).

cases:
  notebook_dataset     notebook Dataset + notebook Compose/ToTensor, num_workers=2   (hazard, WSP206)
  notebook_transforms  module Dataset, notebook Compose/ToTensor kept in it, workers  (hazard, WSP206)
  parent_only_fn       notebook eval_fn that only iterates the loader in the parent,
                       module Dataset/transforms                                  (safe)
  no_workers           notebook Dataset, num_workers=0                              (safe)
"""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e_e3_nbshell import run_cells

IMPORTS = "import numpy as np, torch\nfrom torch.utils.data import Dataset, DataLoader\n"
NB_DATASET = """
class CustomDataset(Dataset):
    def __init__(self, records, transforms=None):
        self.records = records
        self.transforms = transforms
    def __len__(self):
        return len(self.records)
    def __getitem__(self, idx):
        rec = np.full((3, 8), float(self.records[idx]), dtype=np.float32)
        ar = np.zeros(8, dtype=np.float32)
        if self.transforms is not None:
            rec, ar = self.transforms(rec, ar)
        return rec, ar, idx
"""
NB_TRANSFORMS = """
class ToTensor(object):
    def __call__(self, rec, ar):
        return torch.from_numpy(rec), torch.from_numpy(ar)
class Compose:
    def __init__(self, transforms):
        self.transforms = transforms
    def __call__(self, rec, ar):
        for t in self.transforms:
            rec, ar = t(rec, ar)
        return rec, ar
"""
LOOP = """
def eval_fn(loader):
    total = 0.0
    for x, y, idx in loader:
        total += float(x.sum())
    return total
print(eval_fn(loader))
"""
MOD = "from e_e3_02_data import CustomDataset, ToTensor, Compose\n"

CASES = {
    "notebook_dataset": [IMPORTS, NB_DATASET, NB_TRANSFORMS,
        "loader = DataLoader(CustomDataset(list(range(6)), Compose([ToTensor()])), batch_size=2, num_workers=2)", LOOP],
    "notebook_transforms": [IMPORTS + "from e_e3_02_data import CustomDataset\n", NB_TRANSFORMS,
        "loader = DataLoader(CustomDataset(list(range(6)), Compose([ToTensor()])), batch_size=2, num_workers=2)", LOOP],
    "parent_only_fn": [IMPORTS + MOD,
        "loader = DataLoader(CustomDataset(list(range(6)), Compose([ToTensor()])), batch_size=2, num_workers=2)", LOOP],
    "no_workers": [IMPORTS, NB_DATASET, NB_TRANSFORMS,
        "loader = DataLoader(CustomDataset(list(range(6)), Compose([ToTensor()])), batch_size=2, num_workers=0)", LOOP],
}

if __name__ == "__main__":
    sys.exit(run_cells(CASES[sys.argv[1]]))
