"""j3 shape 01 (Dynamic-Few-Shot... main.ipynb): episode loader whose load function is a
local def closing over self, datasets keep a lambda in a Compose transform, and the dataset
classes live in the notebook's __main__.
cases: local_load_fn, compose_lambda, notebook_class (hazards);
       eval_zero_workers, attr_lambda_zero_workers, method_load (safe)."""
import sys
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader


class Compose:
    def __init__(self, fns):
        self.fns = fns

    def __call__(self, x):
        for f in self.fns:
            x = f(x)
        return x


def to_tensor(x):
    return torch.as_tensor(np.asarray(x), dtype=torch.float32)


class TinyImages(Dataset):
    def __init__(self, use_lambda):
        self.data = np.random.rand(16, 4, 4)
        if use_lambda:
            self.transform = Compose([lambda x: np.array(x), to_tensor])
        else:
            self.transform = Compose([np.array, to_tensor])

    def __getitem__(self, i):
        return self.transform(self.data[i])

    def __len__(self):
        return len(self.data)


class ListDataset(Dataset):
    """like torchnet ListDataset: calls load(elem)."""
    def __init__(self, elems, load):
        self.elems = list(elems)
        self.load = load

    def __getitem__(self, i):
        return self.load(self.elems[i])

    def __len__(self):
        return len(self.elems)


class EpisodeLoader:
    def __init__(self, dataset, num_workers):
        self.dataset = dataset
        self.num_workers = num_workers

    def load_episode(self, idx):  # safe twin: bound method of a module-level class
        return self.dataset[idx % len(self.dataset)]

    def get_iterator(self, local):
        if local:
            def load_function(idx):
                return self.dataset[idx % len(self.dataset)]
            load = load_function
        else:
            load = self.load_episode
        return DataLoader(ListDataset(range(8), load), batch_size=2,
                          num_workers=self.num_workers)


NB_SRC = '''
class NotebookImages(Dataset):
    def __init__(self):
        self.data = np.random.rand(8, 4, 4)
    def __getitem__(self, i):
        return torch.as_tensor(self.data[i])
    def __len__(self):
        return len(self.data)
'''


def run(case):
    if case == "local_load_fn":
        it = EpisodeLoader(TinyImages(False), 1).get_iterator(local=True)
    elif case == "compose_lambda":
        it = EpisodeLoader(TinyImages(True), 1).get_iterator(local=False)
    elif case == "notebook_class":
        ns = {"__name__": "__main__", "Dataset": Dataset, "np": np, "torch": torch}
        exec(NB_SRC, ns)  # class defined in a notebook cell: not importable by the worker
        it = DataLoader(ns["NotebookImages"](), batch_size=2, num_workers=1)
    elif case == "eval_zero_workers":
        it = EpisodeLoader(TinyImages(True), 0).get_iterator(local=True)
    elif case == "attr_lambda_zero_workers":
        ds = TinyImages(False)
        ds.fun = lambda x: x
        it = DataLoader(ds, batch_size=2, num_workers=0)
    elif case == "method_load":
        it = EpisodeLoader(TinyImages(False), 1).get_iterator(local=False)
    else:
        raise SystemExit("unknown case")
    n = sum(1 for _ in it)
    print("OK", case, n, "batches")


if __name__ == "__main__":
    run(sys.argv[1])
