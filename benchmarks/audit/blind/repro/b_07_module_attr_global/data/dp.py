"""Data provider: init(config) edits sys.path, imports `ref` as a module, calls ref.init() and builds datasets
that keep the module (or its functions) as an attribute; returns a lambda over a generator (parent only)."""
import os
import sys

import torch
import torch.utils.data


class Dataset(torch.utils.data.Dataset):
    def __init__(self, ds, index, mode):
        if mode == "module_attr":
            self.ds = ds                      # a module object
        else:
            self.get_img = ds.get_img         # a module-level function: pickled by reference
            self.ds_init = ds.init if mode == "lazy_init" else None
        self.index = index

    def __len__(self):
        return len(self.index)

    def __getitem__(self, idx):
        if hasattr(self, "ds"):
            return torch.tensor(float(self.ds.get_img(self.index[idx])))
        if self.ds_init is not None and sys.modules[self.get_img.__module__].anno is None:
            self.ds_init()                    # the worker fills its own copy of the global
        return torch.tensor(float(self.get_img(self.index[idx])))


def init(config):
    current_path = os.path.dirname(os.path.abspath(__file__))
    sys.path.append(current_path)
    import ref as ds
    ds.init()
    dataset = {key: Dataset(ds, list(range(8)), config["mode"]) for key in ["train", "valid"]}
    loaders = {key: torch.utils.data.DataLoader(dataset[key], batch_size=4, shuffle=True,
                                                num_workers=config["num_workers"]) for key in dataset}

    def gen(phase):
        for batch in loaders[phase]:
            yield batch

    return lambda key: gen(key)
