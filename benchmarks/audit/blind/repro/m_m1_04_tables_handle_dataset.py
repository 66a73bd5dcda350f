"""Shape (chess-transformers chess_transformers/train/datasets.py:35 and :133): a Dataset opens a
PyTables file in __init__ and keeps the handle; train.py builds DataLoader(num_workers=CONFIG.NUM_WORKERS=8).
Under spawn the dataset is pickled to each worker: the tables.File cannot be pickled
(its node cache holds a WeakValueDictionary's local function: "Can't pickle local object
'WeakValueDictionary.__init__.<locals>.remove'", as in the issue). Under fork it is inherited.
Cases: hazard (open in __init__), safe (open lazily in __getitem__)."""
import os
import sys
import tempfile
import numpy as np
import tables as tb
import torch
from torch.utils.data import Dataset, DataLoader


class Row(tb.IsDescription):
    moves = tb.Int32Col(shape=(4,))


def make_file(path):
    with tb.open_file(path, mode="w") as f:
        t = f.create_table("/", "encoded_data", Row)
        r = t.row
        for i in range(16):
            r["moves"] = np.arange(4) + i
            r.append()
        t.flush()


class ChessDataset(Dataset):
    def __init__(self, path, lazy):
        self.path = path
        self.lazy = lazy
        self.h5_file = None
        if not lazy:
            self.h5_file = tb.open_file(path, mode="r")
            self.encoded_table = self.h5_file.root.encoded_data

    def __len__(self):
        return 16

    def __getitem__(self, i):
        if self.h5_file is None:
            self.h5_file = tb.open_file(self.path, mode="r")
            self.encoded_table = self.h5_file.root.encoded_data
        return torch.as_tensor(self.encoded_table[i]["moves"])


def main(case):
    d = tempfile.mkdtemp()
    path = os.path.join(d, "data.h5")
    make_file(path)
    ds = ChessDataset(path, lazy=(case == "safe"))
    loader = DataLoader(ds, batch_size=4, num_workers=2)
    print("OK", sum(int(b.sum()) for b in loader))


if __name__ == "__main__":
    main(sys.argv[1])
