"""Shape d_d1_07 (graph-rcnn, Group-Free-3D): an open h5py.File kept on the Dataset in __init__, DataLoader
built in lib/data/build.py, guarded main.py.  cases: h5py_init (hazard), sort_key_lambda (h5py opened lazily;
the sort-key lambdas of __init__ are not kept: safe), closed_pickle (pickle.load in a with-block, only the
list kept: safe)."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib.data.vg_hdf5 import build
from lib.data.build import build_data_loader

if __name__ == "__main__":
    case = sys.argv[1]
    if case not in ("h5py_init", "sort_key_lambda", "closed_pickle"):
        raise SystemExit("unknown case " + case)
    d = tempfile.mkdtemp()
    build(d)
    loader = build_data_loader(d, case)
    print("OK sum", sum(int(b.sum()) for b in loader))
