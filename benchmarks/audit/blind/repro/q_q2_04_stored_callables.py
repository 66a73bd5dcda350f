"""q2 shape 04: callables kept on a dataset sent to DataLoader workers
(outlier-exposure utils/tinyimages_80mn_loader.py:12/31, MNIST/oe_scratch.py:61, CIFAR/test.py:377-417;
 safe look-alikes CIFAR/test.py:107 and :315, CIFAR/oe_scratch.py:145).

cases:
  local_def        - __init__ opens a file, defines load_image locally and stores it (self.load_image = load_image)
  lambda_attr      - self.in_cifar = lambda x: x in self.cifar_idxs
  transform_lambda - transform=Compose([..., Lambda(lambda x: ...), ...]) kept as self.transform
  module_lambda    - module-level `jigsaw = lambda x: ...` put into ds.transform = Compose([..., jigsaw])
  safe             - methods, file opened lazily in the worker, module-level function in the transform
  module_class     - module-level Dataset class in the (guarded) script wrapping another dataset (AvgOfPair)
  parent_lambda    - module-level lambdas used only in the parent (concat/to_np)
All loaders are iterated under the main guard with num_workers=2.
"""
import os
import sys
import tempfile
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader


class Compose:                       # stand-in for torchvision.transforms.Compose
    def __init__(self, ts):
        self.transforms = ts

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


class Lambda:                        # stand-in for torchvision.transforms.Lambda
    def __init__(self, lambd):
        self.lambd = lambd

    def __call__(self, x):
        return self.lambd(x)


def to_tensor(x):
    return torch.as_tensor(np.asarray(x, dtype=np.float32))


def make_bin():
    path = os.path.join(tempfile.gettempdir(), "q_q2_04_tiny.bin")
    with open(path, "wb") as f:
        f.write(np.random.randint(0, 255, 64 * 12, dtype=np.uint8).tobytes())
    return path


class TinyImages(Dataset):           # mirrors utils/tinyimages_80mn_loader.py
    def __init__(self, path, transform=None, exclude=True, use_lambda=True, use_local=True):
        data_file = open(path, "rb")

        def load_image(idx):
            data_file.seek(idx * 12)
            return np.frombuffer(data_file.read(12), dtype=np.uint8).reshape(2, 2, 3)

        if use_local:
            self.load_image = load_image
        else:
            data_file.close()
            self.path = path
        self.transform = transform
        self.exclude = exclude
        if exclude:
            self.idxs = {3, 5}
            if use_lambda:
                self.in_cifar = lambda x: x in self.idxs

    def __len__(self):
        return 64

    def __getitem__(self, i):
        img = self.load_image(i) if hasattr(self, "load_image") else self._read(i)
        if self.transform is not None:
            img = self.transform(img)
        return img, 0

    def _read(self, idx):            # lazy: the file is opened in the worker
        with open(self.path, "rb") as f:
            f.seek(idx * 12)
            return np.frombuffer(f.read(12), dtype=np.uint8).reshape(2, 2, 3)


class AvgOfPair(Dataset):            # module-level class in the script (CIFAR/test.py:315)
    def __init__(self, ds):
        self.ds = ds

    def __len__(self):
        return len(self.ds)

    def __getitem__(self, i):
        return (self.ds[i][0] + self.ds[(i + 1) % len(self.ds)][0]) / 2, 0


jigsaw = lambda x: x.flip(0)          # module-level lambda (CIFAR/test.py:377)
concat = lambda x: np.concatenate(x, axis=0)   # parent-only lambda (CIFAR/test.py:107)


def run(ds):
    loader = DataLoader(ds, batch_size=8, num_workers=2)
    out = [b[0] for b in loader]
    print("OK batches", len(out))
    return out


if __name__ == "__main__":
    case = sys.argv[1] if len(sys.argv) > 1 else "local_def"
    path = make_bin()
    if case == "local_def":
        run(TinyImages(path, transform=Compose([to_tensor]), use_lambda=False))
    elif case == "lambda_attr":
        ds = TinyImages(path, transform=Compose([to_tensor]), use_local=False)
        run(ds)
    elif case == "transform_lambda":
        run(TinyImages(path, transform=Compose([to_tensor, Lambda(lambda x: x.mean(-1))]),
                       exclude=False, use_local=False))
    elif case == "module_lambda":
        ds = TinyImages(path, exclude=False, use_local=False)
        ds.transform = Compose([to_tensor, jigsaw])
        run(ds)
    elif case == "safe":
        run(TinyImages(path, transform=Compose([to_tensor]), exclude=False, use_local=False))
    elif case == "module_class":
        run(AvgOfPair(TinyImages(path, transform=Compose([to_tensor]), exclude=False, use_local=False)))
    elif case == "parent_lambda":
        out = run(TinyImages(path, transform=Compose([to_tensor]), exclude=False, use_local=False))
        print("concat shape", concat([o.numpy() for o in out]).shape)
