"""e_e2_05: look-alikes that are safe under spawn (reid-strong-baseline data/build.py:30 + engine/trainer.py:165 +
data/datasets/cuhk03.py:120, C-3-Framework SHHA/loading_data.py:108, DG-Net trainer.py:256,
face_enhancer/main.py:53).  Cases:
  module_collate   DataLoader(collate_fn=<module-level def>, 2 workers), guarded        -> safe
  parent_lambda    lambdas consumed in the parent only (filter(lambda ...), output_transform=lambda) -> safe
  local_h5py       h5py.File opened in a preprocessing method, only lists/paths reach the Dataset -> safe
  ref_transform    Compose([PIL.Image.fromarray, ...]) kept by the dataset (a module-level function) -> safe
  lambda_collate   contrast: collate_fn=lambda (the hazard these look like)               -> fails under spawn
Run: python e_e2_05_parent_side_lookalikes.py CASE"""
import os, sys, tempfile
import h5py
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


def train_collate_fn(batch):
    return torch.stack(batch, dim=0)


class Compose:
    def __init__(self, ts):
        self.transforms = ts

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


class ImageDataset(Dataset):
    def __init__(self, items, transform=None):
        self.items = items
        self.transform = transform

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        x = self.items[i]
        if self.transform is not None:
            x = self.transform(x)
        return torch.as_tensor(np.asarray(x), dtype=torch.float32)


class Cuhk03Like:
    def __init__(self, path):
        self.raw_mat_path = path
        self.train = self._preprocess()

    def _preprocess(self):
        mat = h5py.File(self.raw_mat_path, "r")

        def _deref(k):
            return mat[k][:].tolist()
        out = _deref("a")
        mat.close()
        return out


def main():
    case = sys.argv[1]
    items = [np.full((2, 2), i, dtype=np.uint8) for i in range(4)]
    collate = train_collate_fn
    transform = None
    if case == "parent_lambda":
        params = filter(lambda p: p is not None, [1, None, 2])
        avg = (lambda x: x[0])((sum(params), 0))
        print("parent-side", avg)
    elif case == "local_h5py":
        p = os.path.join(tempfile.gettempdir(), "e_e2_05.h5")
        with h5py.File(p, "w") as f:
            f["a"] = np.arange(4 * 4, dtype=np.float32).reshape(4, 2, 2)
        items = [np.array(x) for x in Cuhk03Like(p).train]
    elif case == "ref_transform":
        from PIL import Image
        transform = Compose([Image.fromarray, np.asarray])
    elif case == "lambda_collate":
        collate = lambda b: torch.stack(b, dim=0)  # noqa: E731
    loader = DataLoader(ImageDataset(items, transform), batch_size=2, num_workers=2, collate_fn=collate)
    print("RESULT", sum(float(b.sum()) for b in loader))


if __name__ == "__main__":
    main()
