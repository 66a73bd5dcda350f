"""Safe look-alikes (and their hazard twins) from echonet/dynamic and tf2-mobile:
  module_collate      module-level collate_fn + defaultdict(module-level factory) on the dataset, num_workers=2 (safe)
  lambda_defaultdict  the twin: defaultdict(lambda: ...) kept on the dataset (fails under spawn)
  thread_map_lambda   tf.data-like map with num_parallel_calls -> threads: a lambda is fine (safe)
  nb_collate_w0       notebook-defined collate_fn with num_workers=0 (safe)
  nb_collate_w2       the twin: notebook-defined collate_fn with num_workers=2 (fails under spawn)
  nb_importable_ds    notebook DataLoader(num_workers=2) of a dataset class from an importable module (safe)
Notebook cases emulate a Jupyter kernel: __main__.__file__ is deleted before the "cells" run."""
import collections
import os
import sys
from concurrent.futures import ThreadPoolExecutor
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset


def _defaultdict_of_lists():
    return collections.defaultdict(list)


class Echo(Dataset):
    def __init__(self, factory):
        self.trace = collections.defaultdict(factory)
        self.trace["a"][0].append(1)

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.zeros(1, i + 1)


def _video_collate_fn(x):
    i = list(map(lambda t: t.shape[1], x))
    return torch.cat([t.flatten() for t in x]), i


def run(case):
    if case == "module_collate":
        dl = DataLoader(Echo(_defaultdict_of_lists), batch_size=2, num_workers=2, collate_fn=_video_collate_fn)
        print("OK", sum(1 for _ in dl))
    elif case == "lambda_defaultdict":
        dl = DataLoader(Echo(lambda: collections.defaultdict(list)), batch_size=2, num_workers=2, collate_fn=_video_collate_fn)
        print("OK", sum(1 for _ in dl))
    elif case == "thread_map_lambda":
        with ThreadPoolExecutor(4) as ex:
            out = list(ex.map(lambda img_id: (img_id, np.float32(img_id)), range(8)))
        print("OK", len(out))
    elif case.startswith("nb_"):
        import __main__
        if hasattr(__main__, "__file__"):
            del __main__.__file__
        ns = {"torch": torch, "np": np, "DataLoader": DataLoader, "TensorDataset": TensorDataset}
        cell = (
            "def collate_fn(x):\n"
            "    x = [t[0] for t in x]\n"
            "    i = list(map(lambda t: t.shape[0], x))\n"
            "    return torch.stack(x), i\n"
        )
        exec(compile(cell, "<cell4>", "exec"), __main__.__dict__)
        if case == "nb_importable_ds":
            dl = DataLoader(TensorDataset(torch.zeros(4, 1)), batch_size=1, num_workers=2, shuffle=True)
        else:
            w = 0 if case == "nb_collate_w0" else 2
            dl = DataLoader(TensorDataset(torch.zeros(4, 1)), batch_size=2, num_workers=w, collate_fn=__main__.collate_fn)
        print("OK", sum(1 for _ in dl))


if __name__ == "__main__":
    run(sys.argv[1])
