"""Mimics One-Fits-All Classification/src/datasets/data.py:421 (Pool.map(PMUData.load_single, paths), n_proc default -1 = all cores)
called from the guarded main.py. cases: staticmethod (repository shape: safe), lambda (a lambda instead: hazard twin)."""
import sys
from data import PMUData, make_files

if __name__ == "__main__":
    d = PMUData(make_files(), n_proc=2, use_lambda=sys.argv[1] == "lambda")
    print("rows", len(d.all_df))
