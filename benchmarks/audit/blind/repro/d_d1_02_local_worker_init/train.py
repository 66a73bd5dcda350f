"""Shape d_d1_02 (TransUNet): a local worker_init_fn defined in trainer.py's trainer_synapse() reaches the
DataLoader workers; train.py (guarded) calls it.  cases: local_init (hazard), module_init (safe twin),
lazy_h5py (test split: h5py.File opened in __getitem__, list file read and closed in __init__: safe)."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from datasets.dataset_synapse import build
from trainer import trainer_synapse, inference

if __name__ == "__main__":
    case = sys.argv[1]
    tmp = tempfile.mkdtemp()
    build(tmp)
    args = {"root": tmp, "seed": 1234}
    if case in ("local_init", "module_init"):
        print("OK sum", trainer_synapse(args, case))
    elif case == "lazy_h5py":
        print("OK sum", inference(args))
    else:
        raise SystemExit("unknown case " + case)
