"""Mimics sparse-to-dense.pytorch main.py:create_data_loaders (and fast-depth main.py:40):
cases: lambda_init (main.py:71 worker_init_fn=lambda), safe_val_loader (main.py:63, same dataset, no lambda),
safe_jitter_in_worker (dataloaders/transforms.py:483: ColorJitter builds Lambda(lambda ...) inside __call__,
i.e. inside the worker), safe_named_init (module-level worker_init_fn)."""
import os
import sys
import tempfile
import h5py
import numpy as np
import torch
import torch.utils.data as data


def h5_loader(path):
    # opened lazily, in the worker (dataloaders/dataloader.py:34)
    with h5py.File(path, "r") as h5f:
        return np.array(h5f["rgb"]), np.array(h5f["depth"])


class Lambda(object):
    def __init__(self, lambd):
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)


class ColorJitter(object):
    def __init__(self, brightness=0.4):
        self.brightness = brightness

    @staticmethod
    def get_params(brightness):
        f = np.random.uniform(1 - brightness, 1 + brightness)
        return Lambda(lambda img: img * f)  # built per call, in the worker

    def __call__(self, img):
        return self.get_params(self.brightness)(img)


class MyDataloader(data.Dataset):
    color_jitter = ColorJitter(0.4)

    def __init__(self, paths, type, loader=h5_loader):
        self.paths = paths
        self.loader = loader
        self.transform = self.train_transform if type == "train" else self.val_transform

    def train_transform(self, rgb, depth):
        return self.color_jitter(rgb), depth

    def val_transform(self, rgb, depth):
        return rgb, depth

    def __getitem__(self, i):
        rgb, depth = self.loader(self.paths[i])
        rgb, depth = self.transform(rgb, depth)
        return torch.from_numpy(rgb.astype(np.float32)), torch.from_numpy(depth.astype(np.float32))

    def __len__(self):
        return len(self.paths)


def seed_worker(work_id):
    np.random.seed(work_id)


def make_files(d, n=6):
    paths = []
    for i in range(n):
        p = os.path.join(d, "%d.h5" % i)
        with h5py.File(p, "w") as f:
            f["rgb"] = np.random.rand(3, 8, 8)
            f["depth"] = np.random.rand(8, 8)
        paths.append(p)
    return paths


def create_data_loaders(paths, case, workers=2):
    train_dataset = MyDataloader(paths, "train")
    val_dataset = MyDataloader(paths, "val")
    val_loader = data.DataLoader(val_dataset, batch_size=1, shuffle=False, num_workers=workers)
    if case == "lambda_init":
        train_loader = data.DataLoader(train_dataset, batch_size=2, shuffle=True, num_workers=workers,
                                       worker_init_fn=lambda work_id: np.random.seed(work_id))
    else:
        train_loader = data.DataLoader(train_dataset, batch_size=2, shuffle=True, num_workers=workers,
                                       worker_init_fn=seed_worker)
    return train_loader, val_loader


def main(case):
    with tempfile.TemporaryDirectory() as d:
        paths = make_files(d)
        train_loader, val_loader = create_data_loaders(paths, case)
        if case == "safe_val_loader":
            loader = val_loader
        else:
            loader = train_loader  # lambda_init, safe_jitter_in_worker, safe_named_init
        n = sum(x.shape[0] for x, _ in loader)
        print("OK", case, n)


if __name__ == "__main__":
    main(sys.argv[1])
