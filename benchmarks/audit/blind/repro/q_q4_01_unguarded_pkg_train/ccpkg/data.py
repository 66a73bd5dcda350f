# mimics crowdcount/data/data_loader/shtu_dataset.py and crowdcount/transforms
import os
import tempfile
import h5py
import numpy as np
import torch
from torch.utils.data import Dataset


def make_h5_files(n=4):
    d = tempfile.mkdtemp(prefix="q4cc_")
    paths = []
    for i in range(n):
        p = os.path.join(d, f"IMG_{i}.h5")
        with h5py.File(p, "w") as f:
            f["density"] = np.random.rand(8, 8).astype("float32")
        paths.append(p)
    return paths


class ShanghaiTechLike(Dataset):
    def __init__(self, paths, both_transform=None):
        self.both_transform = both_transform
        self.dataset = []
        for p in paths:  # load_data(): h5py opened in a with-block, only arrays kept (safe)
            with h5py.File(p, "r") as gt_file:
                den = np.asarray(gt_file["density"])
            self.dataset.append([np.random.rand(3, 8, 8).astype("float32"), den])

    def __len__(self):
        return len(self.dataset)

    def __getitem__(self, i):
        img, den = self.dataset[i]
        if self.both_transform is not None:
            img, den = self.both_transform(img, den)
        return torch.from_numpy(img), torch.from_numpy(den[np.newaxis, :])


class TransposeFlip:
    def __call__(self, img, den):
        return img[:, :, ::-1].copy(), den[:, ::-1].copy()


class ComplexCompose:  # module-level class holding module-level transforms: pickles by reference
    def __init__(self, ts):
        self.ts = ts

    def __call__(self, img, den):
        for t in self.ts:
            img, den = t(img, den)
        return img, den
