"""Mimics DeblurGANv2 dataset.py: PairedDataset keeps corrupt_fn; from_config builds it from aug.py
(the map(lambda ...) over config keys runs in the parent only)."""
import torch
from torch.utils.data import Dataset
import aug


class PairedDataset(Dataset):
    def __init__(self, files, corrupt_fn):
        self.files = files
        self.corrupt_fn = corrupt_fn

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        return self.corrupt_fn(torch.full((2,), float(self.files[i])))

    @staticmethod
    def from_config(config, named=False):
        files = list(map(lambda k: config[k], ("files_a",)))[0]
        fn = aug.Corrupt(2.0) if named else aug.get_corrupt_function(2.0)
        return PairedDataset(files, fn)
