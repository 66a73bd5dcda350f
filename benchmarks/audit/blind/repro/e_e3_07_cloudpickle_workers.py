"""e3 shape 07 (safe look-alikes, Made-With-ML): notebook functions and local functions handed to a
worker pool that serialises callables with cloudpickle (Ray Data map_batches/map_groups and Ray Train's
train_loop_per_worker do; Ray is not installed here, so joblib's loky backend, also cloudpickle,
stands in for it).

cases:
  notebook_fn_cloudpickle   notebook def -> loky workers (cloudpickle by value)      (safe)
  local_fn_cloudpickle      def inside a function -> loky workers                   (safe)
  notebook_fn_stdlib_pool   the same notebook def -> multiprocessing.Pool (contrast) (fails: stdlib pickler)
"""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e_e3_nbshell import run_cells

FN = """
import pandas as pd
def preprocess(df, class_to_index):
    df = df.copy()
    df["tag"] = df["tag"].map(class_to_index)
    return df
batches = [pd.DataFrame({"tag": ["a", "b"]}), pd.DataFrame({"tag": ["b", "a"]})]
"""
CASES = {
    "notebook_fn_cloudpickle": [FN, """
from joblib import Parallel, delayed
out = Parallel(n_jobs=2, backend="loky")(delayed(preprocess)(b, {"a": 0, "b": 1}) for b in batches)
print([o.tag.tolist() for o in out])
"""],
    "local_fn_cloudpickle": ["""
import sys; sys.path.insert(0, %r)
from e_e3_07_data import stratify_split
print(stratify_split([3, 1, 2, 5, 4]))
""" % os.path.dirname(os.path.abspath(__file__))],
    "notebook_fn_stdlib_pool": [FN, """
from multiprocessing import Pool
with Pool(2) as pool:
    out = pool.starmap(preprocess, [(b, {"a": 0, "b": 1}) for b in batches])
print([o.tag.tolist() for o in out])
"""],
}

if __name__ == "__main__":
    sys.exit(run_cells(CASES[sys.argv[1]]))
