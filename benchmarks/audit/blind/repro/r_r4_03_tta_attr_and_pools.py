"""Mimics Alaska2 abba/predict/predict_folder_pytorch.py and siblings.
cases:
  tta_lambda      - TTA = {'': lambda x: x, ...}; loader.dataset.func_transforms = TTA[k]; iterate DataLoader(num_workers=4) (WSP204)
  safe_tta_partial- same, TTA values are functools.partial(np.rot90, k=..) of a module-level function
  safe_local_config_class - class TrainGlobalConfig defined inside main(), only read by the parent loop
  safe_pool_partial - Pool(4).imap_unordered(partial(module_fn, output_dir=..)) under the guard (save_dct.py)
"""
import sys
from functools import partial
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader


class TestRetriever(Dataset):
    def __init__(self, n=8, func_transforms=None):
        self.n = n
        self.func_transforms = func_transforms

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        img = np.ones((2, 2), dtype=np.float32) * i
        return torch.from_numpy(np.ascontiguousarray(self.func_transforms(img)))


def identity(x):
    return x


def extract(fname, output_dir):
    return f"{output_dir}/{fname}"


def main(case):
    if case in ("tta_lambda", "safe_tta_partial"):
        if case == "tta_lambda":
            TTA = {"": lambda x: x, "rot1": lambda x: np.rot90(x, 1)}
        else:
            TTA = {"": identity, "rot1": partial(np.rot90, k=1)}
        loader = DataLoader(TestRetriever(8), batch_size=4, num_workers=4)
        for k in TTA:
            loader.dataset.func_transforms = TTA[k]
            n = sum(1 for _ in loader)
        print("OK", case, n)
    elif case == "safe_local_config_class":
        class TrainGlobalConfig:
            num_workers = 2
            batch_size = 4
        loader = DataLoader(TestRetriever(8, identity), batch_size=TrainGlobalConfig.batch_size,
                            num_workers=TrainGlobalConfig.num_workers)
        print("OK", case, sum(1 for _ in loader))
    elif case == "safe_pool_partial":
        from multiprocessing import Pool
        fn = partial(extract, output_dir="out")
        with Pool(4) as wp:
            r = list(wp.imap_unordered(fn, ["a", "b", "c"]))
        print("OK", case, len(r))
    else:
        raise SystemExit("unknown case")


if __name__ == "__main__":
    main(sys.argv[1])
