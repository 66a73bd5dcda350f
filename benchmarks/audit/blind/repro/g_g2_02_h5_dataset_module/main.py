"""Shape of CASENet: main.py -> prep_dataset.get_dataloader (DataLoader num_workers=args.workers, default 16)
-> dataloader/SBD_data.SBDData keeps an open h5py.File from __init__; train_val/model_play.train iterates.
Cases: hazard (h5 opened in __init__), lazy (safe twin: opened in __getitem__). Run: python main.py CASE"""
import argparse
import os
import sys
import tempfile

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prep_dataset.prep_SBD_dataset as prep_SBD_dataset
import train_val.model_play as model_play


def main():
    p = argparse.ArgumentParser()
    p.add_argument("case")
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args()
    h5path = os.path.join(tempfile.mkdtemp(), "labels.h5")
    with h5py.File(h5path, "w") as f:
        f["labels"] = np.arange(24, dtype=np.float32).reshape(6, 4)
    loader = prep_SBD_dataset.get_dataloader(args, h5path)
    print("OK", args.case, model_play.train(args, loader))


if __name__ == "__main__":
    main()
