"""b_11: look-alikes that run under spawn (all cases should pass under spawn and fork).

Cases (argv[1]):
  pool_partial_in_init  a Dataset whose __init__ runs Pool().imap(partial(module_fn, ...)), built under the guard,
                        then DataLoader(**loader_args) with num_workers in a kwargs dict (Pytorch-UNet)
  pool_partial_guarded  Pool(n).imap_unordered(partial(module_fn, sizes=...)) in a function the guard calls
                        (style-based-gan prepare_data)
  lambda_in_collate_call a collate class instance whose __call__ uses filter(lambda ...) (clovaai AlignCollate)
  lambda_registry       a dict of lambdas that build the dataset, called in the parent (SimCLR get_dataset)
  zip_getstate          a zipfile opened in __init__ and dropped by __getstate__, spawn forced in main()
                        with set_start_method (stylegan2-ada)
  module_lambda_unused  module-level `numpy = lambda x: ...` helpers that never reach a worker (d2l torch.py)
"""
import multiprocessing
import os
import sys
import tempfile
import zipfile
from functools import partial

import torch
from torch.utils.data import DataLoader, Dataset

numpy = lambda x, *args, **kwargs: x.detach().numpy(*args, **kwargs)  # noqa: E731
reshape = lambda x, *args, **kwargs: x.reshape(*args, **kwargs)  # noqa: E731


def unique_mask_values(idx, offset):
    return idx + offset


class BasicDataset(Dataset):
    def __init__(self, ids):
        self.ids = ids
        with multiprocessing.Pool() as p:
            self.mask_values = sorted(p.imap(partial(unique_mask_values, offset=1), self.ids))

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return torch.tensor(float(self.mask_values[i]))


def resize_worker(item, sizes):
    return [item * s for s in sizes]


class AlignCollate:
    def __init__(self, scale):
        self.scale = scale

    def __call__(self, batch):
        batch = filter(lambda x: x is not None, batch)
        return torch.stack([x * self.scale for x in batch])


class Squares(Dataset):
    def __init__(self, n, view):
        self.n, self.view = n, view

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return self.view(torch.tensor(float(i * i)))


class Double:
    def __call__(self, x):
        return x * 2


class ContrastiveLearningDataset:
    def get_dataset(self, name):
        valid_datasets = {"squares": lambda: Squares(8, Double()),
                          "plain": lambda: Squares(8, torch.neg)}
        return valid_datasets[name]()


class ZipDataset(Dataset):
    def __init__(self, path):
        self._path, self._zipfile = path, None
        self._names = sorted(self._get_zipfile().namelist())  # opens the archive in the parent

    def _get_zipfile(self):
        if self._zipfile is None:
            self._zipfile = zipfile.ZipFile(self._path)
        return self._zipfile

    def __getstate__(self):
        return dict(self.__dict__, _zipfile=None)

    def __len__(self):
        return len(self._names)

    def __getitem__(self, i):
        return torch.tensor(float(self._get_zipfile().read(self._names[i]).decode()))


def main(case):
    if case == "pool_partial_in_init":
        loader_args = dict(batch_size=4, num_workers=2, pin_memory=False)
        loader = DataLoader(BasicDataset(list(range(8))), shuffle=True, **loader_args)
    elif case == "pool_partial_guarded":
        with multiprocessing.Pool(2) as pool:
            print("sum", sum(sum(r) for r in pool.imap_unordered(partial(resize_worker, sizes=(1, 2)), range(8))))
        return
    elif case == "lambda_in_collate_call":
        loader = DataLoader(Squares(8, torch.neg), batch_size=4, num_workers=2, collate_fn=AlignCollate(2))
    elif case == "lambda_registry":
        loader = DataLoader(ContrastiveLearningDataset().get_dataset("squares"), batch_size=4, num_workers=2)
    elif case == "zip_getstate":
        torch.multiprocessing.set_start_method("spawn")
        path = os.path.join(tempfile.gettempdir(), "b11.zip")
        with zipfile.ZipFile(path, "w") as zf:
            for i in range(8):
                zf.writestr(f"{i}.txt", str(i))
        loader = DataLoader(ZipDataset(path), batch_size=4, num_workers=2)
    elif case == "module_lambda_unused":
        loader = DataLoader(Squares(8, torch.neg), batch_size=4, num_workers=2)
        print("first", reshape(numpy(next(iter(loader))), (2, 2)).sum())
    print("sum", sum(b.sum().item() for b in loader))


if __name__ == "__main__":
    main(sys.argv[1])
