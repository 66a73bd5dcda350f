"""c_c1_01: CloserLookFewShot shape (data/dataset.py:9 module-level lambda default attribute; train.py:139
lambda used only in the parent).  Cases:
  hazard        - default target_transform is the module-level lambda (the repository's code)
  safe_def      - the same default as a module-level def (fix)
  parent_lambda - a lambda model factory called in the parent only, loader over the def twin
"""
import os
import sys

CASE = sys.argv[1]
if CASE in ("safe_def", "parent_lambda"):
    os.environ["C1_IDENTITY"] = "def"     # inherited by spawned workers' environment

import torch
from data.datamgr import SimpleDataManager


def make_model(flatten=True):
    return torch.nn.Linear(1, 1)


if __name__ == "__main__":
    feature_model = None
    if CASE == "parent_lambda":
        feature_model = lambda: make_model(flatten=False)   # as train.py:139, consumed by the parent
        model = feature_model()
    loader = SimpleDataManager(batch_size=2).get_data_loader(torch.arange(8.0))
    total = sum(float(x.sum()) for x, y in loader)
    print("sum", total)
