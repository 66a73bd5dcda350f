"""Mimic a Jupyter kernel: __main__ has no __file__, so spawned workers cannot re-import the
cells' definitions. Cases:
  nb_dataset_class   - Dataset class defined in a "cell", DataLoader(num_workers=2) iterated (LibAUC 02/03/09/11, 19)
  nb_transform_class - notebook class instance used as transform of a module dataset (LibAUC 14 TwoCropsTransform)
  safe_module_dataset- dataset + sampler from an imported module, num_workers=2 (stat453 L14/L17)
  safe_num_workers0  - notebook-defined Dataset with num_workers=0 (LibAUC 18, 13; stat453 L09)
"""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import __main__

CELL_DATASET = '''
import torch
from torch.utils.data import Dataset
class ImageDataset(Dataset):
    def __init__(self, n=8):
        self.n = n
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        return torch.tensor(float(i))
'''

CELL_TRANSFORM = '''
class TwoCropsTransform:
    def __init__(self, t1, t2):
        self.t1, self.t2 = t1, t2
    def __call__(self, x):
        return [self.t1(x), self.t2(x)]
'''


def main(case):
    import torch
    from torch.utils.data import DataLoader
    import nb_helper
    # notebook kernel: the main module has no file to re-import in the worker
    if hasattr(__main__, "__file__"):
        del __main__.__file__
    __main__.__spec__ = None
    g = vars(__main__)
    if case == "nb_dataset_class":
        exec(CELL_DATASET, g)
        ds = g["ImageDataset"](8)
        loader = DataLoader(ds, batch_size=4, num_workers=2)
    elif case == "nb_transform_class":
        exec(CELL_TRANSFORM, g)

        ds = nb_helper.ModuleDataset(8)
        ds.transform = g["TwoCropsTransform"](abs, abs)
        loader = DataLoader(ds, batch_size=4, num_workers=2)
    elif case == "safe_module_dataset":
        ds = nb_helper.ModuleDataset(8)
        loader = DataLoader(ds, batch_size=4, num_workers=2, sampler=nb_helper.ChunkSampler(8))
    elif case == "safe_num_workers0":
        exec(CELL_DATASET, g)
        ds = g["ImageDataset"](8)
        loader = DataLoader(ds, batch_size=4, num_workers=0)
    else:
        raise SystemExit("unknown case")
    out = [b for b in loader]
    print("OK", case, len(out))


if __name__ == "__main__":
    main(sys.argv[1])
