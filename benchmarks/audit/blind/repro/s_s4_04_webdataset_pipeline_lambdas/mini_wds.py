"""Stand-in for a webdataset pipeline: an IterableDataset that keeps its stage functions
as attributes (like wds.WebDataset(...).select(f).map_tuple(...).map(f))."""
import torch
from torch.utils.data import IterableDataset


class WebDataset(IterableDataset):
    def __init__(self, n):
        self.n = n
        self.stages = []

    def select(self, f):
        self.stages.append(("select", f)); return self

    def map_tuple(self, *fs):
        self.stages.append(("map_tuple", fs)); return self

    def map(self, f):
        self.stages.append(("map", f)); return self

    def __iter__(self):
        for i in range(self.n):
            x = (torch.ones(3, 2, 2) * i, b"caption %d" % i)
            keep = True
            for kind, f in self.stages:
                if kind == "select":
                    keep = f(x)
                elif kind == "map_tuple":
                    x = tuple(g(v) for g, v in zip(f, x))
                else:
                    x = f(x)
            if keep:
                yield x


class MultiGetter:
    def __init__(self, rules):
        self.rules = rules
