"""r06: a dataset keeps an lru_cache-wrapped local function on self (dinov2 ImageNet22k shape).

Cases: hazard = functools.lru_cache applied to a function defined inside a factory, stored on the
dataset; module_fn = lru_cache of a module-level function stored the same way.
"""
import functools
import sys

from torch.utils.data import DataLoader, Dataset


def make_cached(offset):
    @functools.lru_cache(maxsize=4)
    def cached(i):
        return i + offset

    return cached


@functools.lru_cache(maxsize=4)
def cached_module(i):
    return i + 1


class Shards(Dataset):
    def __init__(self, case):
        self._cached = make_cached(1) if case == "hazard" else cached_module

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return self._cached(i)


if __name__ == "__main__":
    loader = DataLoader(Shards(sys.argv[1]), batch_size=4, num_workers=2)
    print("sum", sum(b.sum().item() for b in loader))
