"""A stand-in for accelerate, for the fixtures only (accelerate is not a test dependency).

``Accelerator.prepare`` gives back what it is given, each ``DataLoader`` as a new loader of a ``DataLoader``
subclass made with the same dataset and loader settings (the real one's ``DataLoaderShard``, on one CPU process),
and a tuple when given several objects.  What the fixtures check is what the real one does (measured with
accelerate 1.16 and torch 2.13 CPU under spawn): iterating the prepared loader starts the same number of workers,
each re-importing the script, so an unguarded script crashes and a per-epoch loop restarts them every epoch unless
``persistent_workers=True`` was given to the original loader.
"""
from torch.utils.data import DataLoader

_SETTINGS = ("batch_size", "num_workers", "collate_fn", "pin_memory", "drop_last", "timeout", "worker_init_fn",
             "prefetch_factor", "persistent_workers")


class DataLoaderShard(DataLoader):
    pass


class Accelerator:
    def __init__(self, cpu=False, **kwargs):
        self.cpu = cpu

    def prepare(self, *objects):
        prepared = tuple(self.prepare_data_loader(o) if isinstance(o, DataLoader) else o for o in objects)
        return prepared[0] if len(prepared) == 1 else prepared

    def prepare_data_loader(self, data_loader):
        settings = {name: getattr(data_loader, name) for name in _SETTINGS}
        if not settings["num_workers"]:
            settings.pop("prefetch_factor")
        return DataLoaderShard(data_loader.dataset, **settings)
