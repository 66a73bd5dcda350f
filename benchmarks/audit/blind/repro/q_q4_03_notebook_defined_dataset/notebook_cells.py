# cells of ML2021Spring_HW4.ipynb (cells 6, 8, 19), hw6_GAN.ipynb (cells 14, 22), ML2021Spring_HW1.ipynb (cells 11, 13)
import os, sys
sys.path.insert(0, os.environ["Q4_DIR"])
import torch
from torch.utils.data import Dataset, DataLoader, random_split
from helpers import ModDataset, mod_collate


class myDataset(Dataset):          # HW4 cell 6 line 10 / hw6 CrypkoDataset cell 14 line 1 / HW1 COVID19Dataset
    def __init__(self, n=8):
        self.data = [torch.full((3,), float(i)) for i in range(n)]

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return self.data[i], i


def collate_batch(batch):          # HW4 cell 8 line 6
    xs, ys = zip(*batch)
    return torch.stack(xs), torch.tensor(ys)


case = sys.argv[-1]
if __name__ == "__main__":         # HW4 cell 19 line 102 (the guard is true in a kernel too)
    import multiprocessing as mp
    mp.set_start_method("spawn" if os.environ.get("Q4_MODE") == "spawn" else "fork", force=True)
    if case == "nb_class":             # notebook Dataset (via random_split Subset) + notebook collate_fn, 2 workers
        ds, collate, workers = myDataset(), collate_batch, 2
        ds, _ = random_split(ds, [6, 2])
    elif case == "nb_collate_only":    # class moved to a module, collate_fn still defined in the notebook
        ds, collate, workers = ModDataset(), collate_batch, 2
    elif case == "nb_class_zero_workers":  # HW1: notebook Dataset, num_workers=n_jobs=0
        ds, collate, workers = myDataset(), None, 0
    elif case == "imported":           # the fix: both defined in an importable module
        ds, collate, workers = ModDataset(), mod_collate, 2
    else:
        raise SystemExit("unknown case")
    loader = DataLoader(ds, batch_size=2, shuffle=True, num_workers=workers, collate_fn=collate)
    print("OK batches", sum(1 for _ in loader))
