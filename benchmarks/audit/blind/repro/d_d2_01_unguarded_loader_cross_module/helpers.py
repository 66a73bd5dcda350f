"""Project helper module (like IIR codes/data/__init__.py, Siam utils/helpers.py,
GaitSet model/model.py): builds DataLoaders; datasets defined at module level."""
import os
import tempfile

import torch
import torch.utils.data as tud


def load_item(i):
    # module-level function kept on the dataset (Siam CDDloader.loader = cdd_loader)
    return torch.tensor([float(i)])


class ToyDataset(tud.Dataset):
    def __init__(self, n=8):
        self.n = n
        self.loader = load_item          # module-level function: pickles by name

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return self.loader(i)


class LazyLmdbDataset(tud.Dataset):
    """IIR LQGTDataset: env is None in __init__, opened in the worker on first __getitem__."""

    def __init__(self, path, n=8):
        self.path = path
        self.n = n
        self.env = None

    def _init_lmdb(self):
        import lmdb
        self.env = lmdb.open(self.path, readonly=True, lock=False)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.env is None:
            self._init_lmdb()
        with self.env.begin() as txn:
            return torch.tensor([float(txn.get(str(i).encode()))])


def make_lmdb(n=8):
    import lmdb
    path = tempfile.mkdtemp()
    env = lmdb.open(path, map_size=1 << 20)
    with env.begin(write=True) as txn:
        for i in range(n):
            txn.put(str(i).encode(), str(i).encode())
    env.close()
    return path


def create_dataloader(dataset, num_workers=1):
    # test phase of IIR: num_workers=1 hard-coded
    return tud.DataLoader(dataset, batch_size=2, shuffle=False, num_workers=num_workers)


class Model:
    """GaitSet Model: fit() builds the DataLoader (bound-method collate_fn) and iterates it."""

    def __init__(self, source, num_workers=2):
        self.source = source
        self.num_workers = num_workers

    def collate_fn(self, batch):
        return torch.stack(batch)

    def fit(self):
        loader = tud.DataLoader(self.source, batch_size=2, collate_fn=self.collate_fn,
                                num_workers=self.num_workers)
        total = 0.0
        for b in loader:
            total += float(b.sum())
        return total


def identity_transform(cfg=None):
    # OpenGait data/transform.py get_transform(None)
    if cfg is None:
        return lambda x: x
