# Mimics pytorch-fm examples/main.py: guarded main, random_split, DataLoader(num_workers=8) (2 here)
import sys, tempfile, os
import torch
from torch.utils.data import DataLoader
import dataset as ds


def main(case):
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, ".criteo")
    ds.build_cache(path)
    if case == "hazard":
        d = ds.CriteoLikeDataset(path)
    elif case == "lazy":
        d = ds.LazyDataset(path)
    elif case == "safe":
        d = ds.MovieLensLike()
    else:
        raise SystemExit("unknown case")
    n = len(d)
    tr, va = torch.utils.data.random_split(d, (n - n // 4, n // 4))
    loader = DataLoader(tr, batch_size=4, num_workers=2)
    print("OK", case, sum(1 for _ in loader), "batches")


if __name__ == "__main__":
    main(sys.argv[1])
