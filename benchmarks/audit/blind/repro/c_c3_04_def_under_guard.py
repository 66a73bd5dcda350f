"""c3 shape 04: worker_init_fn defined inside `if __name__ == '__main__':` of a script run directly (WSP106).

Mimics Pointnet_Pointnet2_pytorch data_utils/S3DISDataLoader.py L173-189: the self-test block defines
`def worker_init_fn(worker_id)` under the guard and passes it to DataLoader(num_workers=16). Under spawn the
script is re-imported as __mp_main__, the guard is false, the function does not exist there:
"Can't get attribute 'worker_init_fn' on <module '__mp_main__'>". The dataset class itself is module-level
in the script (fine).

usage: python c_c3_04_def_under_guard.py CASE
cases: guard_def (hazard); module_def (safe: the same function at module level)
"""
import random
import sys

import numpy as np
import torch
from torch.utils.data import Dataset


class S3DISDataset(Dataset):
    def __init__(self, n=8):
        self.points = np.random.rand(n, 4, 3).astype(np.float32)

    def __len__(self):
        return len(self.points)

    def __getitem__(self, i):
        return torch.from_numpy(self.points[i])


manual_seed_default = 123


def module_worker_init_fn(worker_id):
    random.seed(manual_seed_default + worker_id)


if __name__ == '__main__':
    case = sys.argv[1]
    point_data = S3DISDataset()
    manual_seed = 123

    def worker_init_fn(worker_id):
        random.seed(manual_seed + worker_id)

    fn = worker_init_fn if case == "guard_def" else module_worker_init_fn
    train_loader = torch.utils.data.DataLoader(point_data, batch_size=4, shuffle=True, num_workers=2,
                                               worker_init_fn=fn)
    n = sum(1 for _ in train_loader)
    print(f"[{case}] {n} batches")
    print("RESULT: OK")
