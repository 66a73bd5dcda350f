# mimics run.py (guarded) -> exp/exp_classification.py -> data_provider/data_factory.py
# cases: hazard (lambda collate, num_workers=2), safe (partial, num_workers=2), zero (lambda, num_workers=0)
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exp_classification import Exp_Classification

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("case", choices=["hazard", "safe", "zero"])
    p.add_argument("--seq_len", type=int, default=5)
    args = p.parse_args()
    args.num_workers = 0 if args.case == "zero" else 2
    if args.case == "zero":
        args.case = "hazard"
    print("samples", Exp_Classification(args).train())
