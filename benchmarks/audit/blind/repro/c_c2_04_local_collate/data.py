"""SparseConvNet examples/*/data.py and diffwave dataset.py stand-in."""
import numpy as np
import torch
import torch.utils.data

categories = ["a", "b"]
nClasses = [2, 3]


def load(xF, c, classOffset, nc):
    return (xF[0], c, classOffset, nc)


def load_one(x):
    return x[0]


def train(mode):
    """3d_segmentation data.train(): collect with a lambda collate, then return a loader with a local merge."""
    d = []
    c = 0
    if mode == "lambda_collate":
        collate = lambda x: load(x, c, 0, nClasses[c])
    else:
        collate = load_one
    for x in torch.utils.data.DataLoader(["f0", "f1", "f2"], collate_fn=collate, num_workers=2):
        d.append(x)

    def merge(tbl):
        return len(tbl)
    if mode == "module_collate":
        merge = module_merge_len
    return torch.utils.data.DataLoader(d, batch_size=2, collate_fn=merge, num_workers=2, shuffle=True)


def module_merge_len(tbl):
    return len(tbl)


def MergeFn(spatial_size=63):
    """Chinese_handwriting data.MergeFn(): returns a local function."""
    center = spatial_size / 2

    def merge(tbl):
        return [t + center for t in tbl]
    return merge


def module_merge(tbl):
    return [t * 2 for t in tbl]


def get_iterators(mode):
    collate = MergeFn() if mode == "factory_merge" else module_merge
    return torch.utils.data.DataLoader(list(range(6)), collate_fn=collate, batch_size=3, num_workers=2)


def scannet_loader(mode):
    """ScanNet data.py: module-level collate, worker_init_fn=lambda."""
    if mode == "worker_init_lambda":
        init = lambda x: np.random.seed(x)
    else:
        init = None
    return torch.utils.data.DataLoader(list(range(6)), batch_size=3, collate_fn=module_merge,
                                       num_workers=2, worker_init_fn=init)


class AttrDict(dict):
    """diffwave params.AttrDict: __dict__ is the dict itself."""
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.__dict__ = self


params = AttrDict(hop_samples=4, unconditional=False)


class Collator:
    def __init__(self, params):
        self.params = params

    def collate(self, minibatch):
        assert self.params.unconditional is False
        return [m * self.params.hop_samples for m in minibatch]


def diffwave_loader():
    return torch.utils.data.DataLoader(list(range(6)), batch_size=3, collate_fn=Collator(params).collate,
                                       num_workers=2)
