# mimics parallel_wavegan/bin/train.py main(): lambda load fns (format hdf5), num_workers=2, allow_cache
import os, sys, tempfile
import numpy as np
import torch
from torch.utils.data import DataLoader
from dataset import AudioMelDataset


def read_npy(path):  # module-level load function (safe twin)
    return np.load(path)


def main(case):
    d = tempfile.mkdtemp()
    files = []
    for i in range(4):
        p = os.path.join(d, f"{i}.npy"); np.save(p, np.zeros(8, dtype=np.float32)); files.append(p)
    if case == "lambda_loadfn":
        ds = AudioMelDataset(files, audio_load_fn=lambda x: np.load(x))
    elif case == "manager_cache":
        ds = AudioMelDataset(files, audio_load_fn=read_npy, allow_cache=True)
    elif case == "queue_storage":
        ds = AudioMelDataset(files, audio_load_fn=read_npy, storage_size=8)
    elif case == "safe":
        ds = AudioMelDataset(files, audio_load_fn=read_npy, allow_cache=False)
    else:
        raise SystemExit("unknown case")
    loader = DataLoader(ds, batch_size=2, num_workers=2)
    for b in loader:
        pass
    print("OK", case)


if __name__ == "__main__":
    main(sys.argv[1])
