# mimics PAE util.py: a Dataset that opens h5py.File in __init__ (hazard) or lazily (safe),
# a DataLoader builder with num_workers from cpu_count, a collate function that is a plain
# function defined in the class body (no self) passed as Class.func.
import os, multiprocessing
import h5py, numpy as np, torch, torch.utils.data

def make_file(path):
    if not os.path.exists(path):
        with h5py.File(path, "w") as f:
            f["primary"] = np.arange(40, dtype=np.int64).reshape(8, 5)

class H5Eager(torch.utils.data.Dataset):
    def __init__(self, filename):
        self.h5pyfile = h5py.File(filename, "r")          # hazard: kept on self
        self.n = self.h5pyfile["primary"].shape[0]
    def __getitem__(self, i):
        return torch.tensor(self.h5pyfile["primary"][i])
    def __len__(self):
        return self.n
    def sort_samples_in_minibatch(samples):                # plain function in class body
        samples = list(samples)
        samples.sort(key=lambda x: len(x), reverse=True)   # lambda only runs inside the worker
        return samples

class H5Lazy(torch.utils.data.Dataset):
    def __init__(self, filename):
        self.filename = filename
        self.h5pyfile = None
        with h5py.File(filename, "r") as f:
            self.n = f["primary"].shape[0]
    def __getitem__(self, i):
        if self.h5pyfile is None:
            self.h5pyfile = h5py.File(self.filename, "r")
        return torch.tensor(self.h5pyfile["primary"][i])
    def __len__(self):
        return self.n
    def sort_samples_in_minibatch(samples):
        samples = list(samples)
        samples.sort(key=lambda x: len(x), reverse=True)
        return samples

def construct_loader(filename, lazy, num_workers=None):
    cls = H5Lazy if lazy else H5Eager
    if num_workers is None:
        num_workers = min(2, multiprocessing.cpu_count())
    return torch.utils.data.DataLoader(cls(filename), batch_size=4, num_workers=num_workers,
                                       collate_fn=cls.sort_samples_in_minibatch)
