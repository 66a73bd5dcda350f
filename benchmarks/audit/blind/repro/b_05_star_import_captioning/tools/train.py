"""b_05: tools/train.py star-imports the package's dataloader module and calls train(opt) at module level.

Cases (argv[1]):
  as_is          h5py label file + lambda + local def on the dataset, unguarded call (first failure: h5py)
  no_h5          --input_label_h5 none: the lambda stored on fc_loader fails next
  no_lambda      h5 off, fc loader picklable: the local def load_npz stored on att_loader fails next
  unguarded      every attribute picklable, train(opt) still at module level (WSP101)
  guarded        every attribute picklable, train(opt) under the main guard (safe twin)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from captioning.data.dataloader import *  # noqa: E402,F401,F403


def train(opt):
    loader = DataLoader(opt)  # noqa: F405  (the package's wrapper, from the star import)
    print("sum", loader.get_batch("train").sum().item() + loader.get_batch("val").sum().item())


case = sys.argv[1]
opt = {"input_label_h5": "none" if case != "as_is" else "data/label.h5",
       "mode": {"as_is": "lambda", "no_h5": "lambda", "no_lambda": "no_lambda"}.get(case, "picklable")}
if case != "guarded":
    train(opt)
if __name__ == "__main__" and case == "guarded":
    train(opt)
