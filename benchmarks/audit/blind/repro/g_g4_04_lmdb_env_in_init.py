# Shape: a Dataset opens lmdb.open(...) in __init__ and is iterated by a DataLoader with workers
# (SSL4EO-S12 ssl4eo_dataset_lmdb.py:135, bigearthnet_dataset_seco_lmdb_s2_uint8.py:107 with
# is_slurm_job=False default; CoCLR lmdb_dataset.py:68/227/394/552) -> WSP301.
# Cases: env_in_init (hazard), lazy_env (safe twin: is_slurm_job=True path, opened in __getitem__),
# local_handle_in_init (safe: handle opened in __init__ but kept only as a local),
# parent_lambda_map (safe: CoCLR convert_video_to_lmdb.py:29, list(map(lambda ...)) in the parent).
import os
import pickle
import sys
import tempfile

import lmdb
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


def build_db(path):
    env = lmdb.open(path, map_size=1 << 24)
    with env.begin(write=True) as txn:
        for i in range(6):
            txn.put(str(i).encode(), pickle.dumps(np.full(3, i, dtype=np.uint8)))
    env.close()


class LMDBDataset(Dataset):
    def __init__(self, lmdb_file, is_slurm_job=False):
        self.lmdb_file = lmdb_file
        self.is_slurm_job = is_slurm_job
        if not self.is_slurm_job:
            self.env = lmdb.open(self.lmdb_file, max_readers=1, readonly=True, lock=False,
                                 readahead=False, meminit=False)
            with self.env.begin(write=False) as txn:
                self.length = txn.stat()['entries']
        else:
            self.env = None
            self.length = 6

    def _init_db(self):
        self.env = lmdb.open(self.lmdb_file, max_readers=1, readonly=True, lock=False,
                             readahead=False, meminit=False)

    def __getitem__(self, index):
        if self.is_slurm_job and self.env is None:
            self._init_db()
        with self.env.begin(write=False) as txn:
            data = txn.get(str(index).encode())
        return torch.from_numpy(pickle.loads(data))

    def __len__(self):
        return self.length


class LocalHandleDataset(Dataset):
    def __init__(self, lmdb_file):
        self.lmdb_file = lmdb_file
        env = lmdb.open(lmdb_file, readonly=True, lock=False)   # local only
        with env.begin() as txn:
            self.samples = [k for k, _ in txn.cursor()]
        env.close()

    def __getitem__(self, i):
        return torch.tensor(len(self.samples[i]))

    def __len__(self):
        return len(self.samples)


if __name__ == "__main__":
    case = sys.argv[1]
    path = os.path.join(tempfile.mkdtemp(), "db.lmdb")
    build_db(path)
    if case in ("env_in_init", "lazy_env"):
        ds = LMDBDataset(path, is_slurm_job=(case == "lazy_env"))
        loader = DataLoader(ds, batch_size=2, num_workers=2)
        print(sum(b.sum().item() for b in loader))
    elif case == "local_handle_in_init":
        # SSL4EO-S12 transfer_change_detection/datasets/oscd_dataset.py:97: a handle opened in
        # __init__ only as a local (rasterio.open there), never stored on self -> safe
        ds = LocalHandleDataset(path)
        loader = DataLoader(ds, batch_size=2, num_workers=2)
        print(sum(b.sum().item() for b in loader))
    elif case == "parent_lambda_map":
        raw = list(map(lambda x: str(x).encode(), range(6)))
        env = lmdb.open(path, readonly=True, lock=False)
        with env.begin() as txn:
            print([len(txn.get(k)) for k in raw])
    print("OK", case)
