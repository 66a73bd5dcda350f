"""Mimics PytorchDigitalPathology old/train_unet.ipynb cell 6: the Dataset stores `self.tables = tables.open_file(...)`
in __init__ but closes it at once and reopens the file in __getitem__. Case `closed` (safe: the closed File pickles
and unpickles), case `open` (hazard twin, not labelled: a File left open is unpicklable). Dataset at module level
of a real file here, so only the resource is tested. Usage: python d_d3_04_closed_tables_file.py CASE"""
import os, sys, tempfile
import numpy as np
import tables
import torch
from torch.utils.data import DataLoader

FNAME = os.path.join(tempfile.gettempdir(), "d_d3_04.pytable")


class Dataset(object):
    def __init__(self, fname, close):
        self.fname = fname
        self.tables = tables.open_file(self.fname)
        self.nitems = self.tables.root.img.shape[0]
        if close:
            self.tables.close()
    def __getitem__(self, index):
        with tables.open_file(self.fname, 'r') as db:
            return torch.from_numpy(db.root.img[index])
    def __len__(self):
        return self.nitems


if __name__ == "__main__":
    case = sys.argv[1]
    with tables.open_file(FNAME, 'w') as f:
        f.create_array(f.root, 'img', np.arange(16, dtype=np.float32).reshape(8, 2))
    ds = Dataset(FNAME, close=(case == "closed"))
    loader = DataLoader(ds, batch_size=4, num_workers=2)
    print(sum(b.sum().item() for b in loader))
    print("OK", case)
