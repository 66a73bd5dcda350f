"""Shape of thaw-slump-segmentation data_loading.get_slump_loader: H5Dataset opens its h5py.File lazily
(assert_open in __getitem__, and __len__ closes it again), but the loader factory filters tiles in the
parent with `data[i][1].max() > 0`, which opens the file and leaves it open; the Subset/ConcatDataset/
Transformed wrapper then goes to DataLoader(num_workers=data_threads) -> "h5py objects cannot be pickled".
Cases: hazard (get_slump_loader shape), plain (safe twin: get_loader shape, only len() in the parent),
closed (safe twin: the parent closes the handle, close_fd(), before building the loader)."""
import os
import sys
import tempfile

import h5py
import numpy as np
import torch
from torch.utils.data import ConcatDataset, DataLoader, Dataset, Subset


class H5Dataset(Dataset):
    def __init__(self, path):
        self.path = path
        self.h5 = None
        self.length = None

    def assert_open(self):
        if self.h5 is None:
            self.h5 = h5py.File(self.path, 'r')

    def close_fd(self):
        self.h5.close()
        self.h5 = None

    def __getitem__(self, idx):
        self.assert_open()
        return torch.from_numpy(self.h5['x'][idx]), torch.from_numpy(self.h5['mask'][idx])

    def __len__(self):
        if self.length is None:
            if self.h5 is None:
                self.assert_open()
                self.length = self.h5['mask'].shape[0]
                self.close_fd()
            else:
                self.length = self.h5['mask'].shape[0]
        return self.length


class Scaling:
    def __init__(self, f):
        self.f = f

    def __call__(self, sample):
        return [sample[0] * self.f, sample[1]]


class Transformed(Dataset):
    def __init__(self, dataset, transform):
        self.dataset, self.transform = dataset, transform

    def __getitem__(self, idx):
        return self.transform(self.dataset[idx])

    def __len__(self):
        return len(self.dataset)


def make(path):
    with h5py.File(path, 'w') as f:
        f['x'] = np.ones((6, 2, 2), np.float32)
        f['mask'] = np.array([[[0, 1]], [[0, 0]]] * 3, np.float32).reshape(6, 1, 2)


def get_slump_loader(scenes, close=False):
    filtered = []
    for scene in scenes:
        data = H5Dataset(scene)
        subset = [i for i in range(len(data)) if data[i][1].max() > 0]   # parent opens the h5 and keeps it
        if close:
            data.close_fd()
        filtered.append(Subset(data, subset))
    return DataLoader(Transformed(ConcatDataset(filtered), Scaling(0.5)), batch_size=2, num_workers=2)


def get_loader(scenes):
    ds = ConcatDataset([Transformed(H5Dataset(s), Scaling(0.5)) for s in scenes])
    return DataLoader(ds, batch_size=2, num_workers=2)


def main(case):
    path = os.path.join(tempfile.mkdtemp(), 'scene.h5')
    make(path)
    if case == 'hazard':
        loader = get_slump_loader([path])
    elif case == 'closed':
        loader = get_slump_loader([path], close=True)
    else:
        loader = get_loader([path])
    n = sum(b[0].shape[0] for b in loader)
    print('OK', case, n)


if __name__ == '__main__':
    main(sys.argv[1])
