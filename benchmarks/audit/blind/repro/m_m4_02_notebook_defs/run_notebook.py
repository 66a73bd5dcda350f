"""m4 shape 02: a class or function defined in a notebook cell reaches DataLoader workers
(code-of-learn fcn.ipynb / char_rnn.ipynb / tensorboard.ipynb / lr-decay.ipynb / regularization.ipynb,
stat453 hw3.ipynb / custom-dataloader-example.ipynb / 08_dcgan-celeba.ipynb).

The cells are exec'd into __main__ after removing __file__/__spec__, as in a Jupyter kernel:
a spawned worker then has no main module to re-import.

Cases:
  nb_class            Dataset class defined in a cell, DataLoader(num_workers=2)           (WSP206)
  nb_transform_fn     def data_tf(x) in a cell used as a library dataset's transform, 2 workers (WSP206)
  nb_transform_helper same, iterated by helper_utils.train() from an importable module     (WSP206, 2 modules)
  nb_class_workers0   notebook class, num_workers=0                                         (safe)
  nb_collate_workers0 notebook collate_fn, num_workers=0                                    (safe)
  nb_library          importable dataset class + library-only transform, 2 workers          (safe)
  nb_module_dataset   dataset class and loader factory in a project module, 2 workers       (safe)
"""
import os
import sys
import __main__

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

CASE = sys.argv[1] if len(sys.argv) > 1 else "nb_class"

CELLS = {
    "imports": """
import torch
from torch.utils.data import Dataset, DataLoader, TensorDataset
import helper_utils
""",
    "nb_class": """
class TextDataset(object):
    def __init__(self, arr):
        self.arr = arr
    def __getitem__(self, item):
        return self.arr[item], self.arr[item] + 1
    def __len__(self):
        return self.arr.shape[0]
train_set = TextDataset(torch.arange(32))
train_data = DataLoader(train_set, 8, True, num_workers=NW)
n = 0
for x, y in train_data:
    n += len(y)
print('OK', n)
""",
}

TRANSFORM_CELL = """
import libdata
def data_tf(x):
    return x * 2
train_set = libdata.LibDataset(32, transform=data_tf)
train_data = DataLoader(train_set, batch_size=8, shuffle=True, num_workers=NW)
"""
ITER_CELL = """
n = 0
for im, label in train_data:
    n += len(label)
print('OK', n)
"""
HELPER_ITER_CELL = """
print('OK', helper_utils.train(train_data, 1))
"""
COLLATE_CELL = """
def collate_fn(batch):
    return torch.stack([b[0] for b in batch]), torch.stack([b[1] for b in batch])
ds = TensorDataset(torch.arange(32), torch.arange(32))
train_data = DataLoader(ds, 8, True, collate_fn=collate_fn, num_workers=0)
"""
LIBRARY_CELL = """
import libdata
train_set = libdata.LibDataset(32, transform=libdata.Scale(2))
train_data = DataLoader(train_set, batch_size=8, shuffle=True, num_workers=NW)
"""
MODULE_CELL = """
import libdata
train_data = libdata.create_loaders(32, transform=libdata.Scale(2), num_workers=NW)
"""


def kernel_exec(cells):
    g = __main__.__dict__
    g.pop("__file__", None)
    __main__.__spec__ = None
    g["NW"] = 0 if CASE.endswith("workers0") else 2
    for c in cells:
        exec(compile(c, "<cell>", "exec"), g)


if __name__ == "__main__":
    if CASE == "nb_class":
        kernel_exec([CELLS["imports"], CELLS["nb_class"]])
    elif CASE == "nb_class_workers0":
        kernel_exec([CELLS["imports"], CELLS["nb_class"]])
    elif CASE == "nb_transform_fn":
        kernel_exec([CELLS["imports"], TRANSFORM_CELL, ITER_CELL])
    elif CASE == "nb_transform_helper":
        kernel_exec([CELLS["imports"], TRANSFORM_CELL, HELPER_ITER_CELL])
    elif CASE == "nb_collate_workers0":
        kernel_exec([CELLS["imports"], COLLATE_CELL, ITER_CELL])
    elif CASE == "nb_library":
        kernel_exec([CELLS["imports"], LIBRARY_CELL, ITER_CELL])
    elif CASE == "nb_module_dataset":
        kernel_exec([CELLS["imports"], MODULE_CELL, ITER_CELL])
    else:
        raise SystemExit("unknown case " + CASE)
