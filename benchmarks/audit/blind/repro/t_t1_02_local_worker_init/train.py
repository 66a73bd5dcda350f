"""Shape: TransUNet-style train.py (guarded) -> trainer.trainer_synapse, which defines
worker_init_fn inside the function and passes it to DataLoader(num_workers>0).
Cases: hazard_local_init, safe_global_init (module-level worker_init_fn),
safe_h5_lazy_test (h5py opened in __getitem__, num_workers=1)."""
import os
import sys
import tempfile
import h5py
import numpy as np
from trainer import trainer_synapse

if __name__ == "__main__":
    case = sys.argv[1]
    root = tempfile.mkdtemp()
    with h5py.File(os.path.join(root, "vol.h5"), "w") as f:
        f["image"] = np.zeros((8, 6, 6), dtype=np.float32)
    n = trainer_synapse({"root": root, "seed": 1234}, case)
    print("OK", case, "batches", n)
