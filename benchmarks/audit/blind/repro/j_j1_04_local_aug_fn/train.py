"""Shape j_j1_04 (DeblurGANv2 train.py + dataset.py + aug.py).
Usage: python train.py CASE
  zero_workers  the repository's code: partial(DataLoader, ...) without num_workers (0): safe
  workers       twin with num_workers=2 (the commented-out cpu_count() version): local `process` is pickled -> WSP202
  named         num_workers=2 with a module-level callable class: safe
"""
import sys
from functools import partial
from torch.utils.data import DataLoader
from dataset import PairedDataset


def main(case):
    kw = {} if case == "zero_workers" else {"num_workers": 2}
    get_dataloader = partial(DataLoader, batch_size=2, shuffle=True, drop_last=True, **kw)
    ds = PairedDataset.from_config({"files_a": [0, 1, 2, 3]}, named=(case == "named"))
    loader = get_dataloader(ds)
    print("OK", case, sum(float(x.sum()) for x in loader))


if __name__ == "__main__":
    main(sys.argv[1])
