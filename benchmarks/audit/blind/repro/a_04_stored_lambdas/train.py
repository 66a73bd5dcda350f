"""a_04: a lambda kept in an attribute of an object that reaches DataLoader workers (num_workers=1).

Cases: ssd_aug, sampler_attr, rotation (get_transform(rotation=90)), kwargs_factory (get_cifar),
ctor_identity (Lambda(lambda x: x) built in the dataset __init__ when an option is off), module_level
(a Compose with a lambda built at module level of this script); safe twins: rotation0 (no lambda
appended), module_fn (module-level function in the Compose), model_attr (the lambda sits on a model used
only in the parent), parent_lambda (lambdas used by the parent only: model.apply, map_location-style),
bound_method (a bound method of a picklable object kept on the dataset, CenterNet load_image_func),
worker_side_lambda (a lambda factory built and called inside __getitem__, parseq augment._get_op)."""
import sys

import torch
from torch.utils.data import DataLoader

from augment import PaddedSampler, TrainAugmentation, get_cifar, get_transform, to_rgb
from data import Points, Pooling
from tvshim import Compose, Lambda

MODULE_LEVEL = Compose([Lambda(lambda crops: crops + 1)])
_CACHE = {}


class Lookup:                           # a plain object whose bound method the dataset keeps
    def __init__(self, table):
        self.table = table

    def load(self, x):
        return x * self.table["scale"]


def cached_op(x):                       # runs in the worker: the lambda is created and called there
    op = _CACHE.setdefault("k", (lambda: (lambda v: v * 1))())
    return op(x)


def main(case):
    kwargs = {"num_workers": 1}
    model = None
    if case == "ssd_aug":
        ds = Points(TrainAugmentation(2.0))
    elif case == "sampler_attr":
        ds = Points(PaddedSampler())
    elif case in ("rotation", "rotation0"):
        ds = Points(get_transform(90 if case == "rotation" else 0))
    elif case == "kwargs_factory":
        transform, kwargs = get_cifar()
        ds = Points(transform)
    elif case == "ctor_identity":
        ds = Points(identity_unless=False)
    elif case == "module_level":
        ds = Points(MODULE_LEVEL)
    elif case == "model_attr":
        ds, model = Points(Compose([to_rgb])), Pooling()
    elif case == "parent_lambda":
        model = Pooling()
        model.apply(lambda m: setattr(m, "width_mult", 1.0))
        ds = Points(Compose([to_rgb]))
    elif case == "bound_method":
        ds = Points(Lookup({"scale": 1.0}).load)
    elif case == "worker_side_lambda":
        ds = Points(Compose([cached_op]))
    else:
        ds = Points(Compose([to_rgb]))
    total = sum(b.sum().item() for b in DataLoader(ds, batch_size=4, **kwargs))
    if model is not None:
        total += model(torch.ones(2, 2)).sum().item()
    print("sum", total)


if __name__ == "__main__":
    main(sys.argv[1])
