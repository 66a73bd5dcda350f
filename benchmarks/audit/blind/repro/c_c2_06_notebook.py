"""c_c2_06: notebook cells (WaveRNN notebooks NB4a / NB4b).  A Jupyter kernel's __main__ has no file, so a
spawned worker cannot re-import it; the script drops __main__.__file__ first and runs its "cells" at top
level with no guard (as a kernel does).

Cases:
  pool_def       def process_wav in a cell, Pool(processes=2).imap_unordered(process_wav, files)  (WSP206)
  dataset_class  class AudiobookDataset in a cell, DataLoader(num_workers=2, collate_fn=collate)   (WSP206)
  collate_def    def collate in a cell, DataLoader over an importable dataset, num_workers=2       (WSP206)
  workers0       the notebook class and collate with DataLoader(num_workers=0): safe
"""
import __main__
import sys

del __main__.__file__

import torch  # noqa: E402
from multiprocessing import Pool  # noqa: E402
from torch.utils.data import DataLoader, Dataset, TensorDataset  # noqa: E402

CASE = sys.argv[1]


def process_wav(path):                      # cell 15
    return path[:-4]


class AudiobookDataset(Dataset):            # cell 10
    def __init__(self, ids):
        self.metadata = ids

    def __getitem__(self, index):
        return torch.tensor(float(self.metadata[index]))

    def __len__(self):
        return len(self.metadata)


def collate(batch):                         # cell 11
    return torch.stack([b[0] if isinstance(b, tuple) else b for b in batch])


if CASE == "pool_def":
    pool = Pool(processes=2)
    print(list(pool.imap_unordered(process_wav, ["a.wav", "b.wav"])))
    pool.close()
elif CASE == "dataset_class":
    loader = DataLoader(AudiobookDataset(list(range(6))), collate_fn=collate, batch_size=3, num_workers=2)
    print("batches", sum(1 for _ in loader))
elif CASE == "collate_def":
    loader = DataLoader(TensorDataset(torch.arange(6.0)), collate_fn=collate, batch_size=3, num_workers=2)
    print("batches", sum(1 for _ in loader))
elif CASE == "workers0":
    loader = DataLoader(AudiobookDataset(list(range(6))), collate_fn=collate, batch_size=3, num_workers=0)
    print("batches", sum(1 for _ in loader))
