"""r14: callables that do pickle by reference (partial of a module-level function, operator.itemgetter)
versus a partial of a local function (WSP202).

Cases: partial_module = worker_init_fn=partial(module fn) (timm shape); itemgetter =
collate_fn=operator.itemgetter(0) (detectron2 shape); partial_local = worker_init_fn=partial(local fn).
"""
import functools
import operator
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset


def _worker_init(worker_id, seeding="all"):
    torch.manual_seed(worker_id)


def main(case):
    ds = TensorDataset(torch.arange(8.0))
    if case == "partial_module":
        loader = DataLoader(ds, batch_size=4, num_workers=2, worker_init_fn=functools.partial(_worker_init, seeding="all"))
    elif case == "itemgetter":
        loader = DataLoader(ds, batch_size=None, num_workers=2, collate_fn=operator.itemgetter(0))
    else:
        def init(worker_id, seeding):
            torch.manual_seed(worker_id)
        loader = DataLoader(ds, batch_size=4, num_workers=2, worker_init_fn=functools.partial(init, seeding="all"))
    print("n", sum(1 for _ in loader))


if __name__ == "__main__":
    main(sys.argv[1])
