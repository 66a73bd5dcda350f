"""Shape d_d1_04 (BasicSTISR): lmdb Environment kept by the Dataset in __init__ (dataset.py), DataLoader
built in interfaces/base.py, guarded main.py.  cases: lmdb_init (hazard), lmdb_lazy (safe twin: opened in
__getitem__), collate_lambda_init (the collate object's local lambda is called in __init__ only: safe)."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dataset.dataset import build
from interfaces.base import TextBase

if __name__ == "__main__":
    case = sys.argv[1]
    root = tempfile.mkdtemp()
    build(root)
    if case not in ("lmdb_init", "lmdb_lazy", "collate_lambda_init"):
        raise SystemExit("unknown case " + case)
    mission = TextBase({"root": root, "workers": 2}, lazy=(case != "lmdb_init"))
    print("OK sum", mission.train())
