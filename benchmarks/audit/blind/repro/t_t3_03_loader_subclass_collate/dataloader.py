# mimics GraphMAE chem/dataloader.py: DataLoader subclasses whose collate_fn is either
# a lambda built in __init__ (DataLoaderMasking) or a bound method self.collate_fn (DataLoaderMaskingPred);
# num_workers arrives through **kwargs from the training script.
import torch
from torch.utils.data import DataLoader


class MaskAtom:
    def __init__(self, mask_rate):
        self.mask_rate = mask_rate

    def __call__(self, x):
        return x * (torch.rand_like(x) > self.mask_rate)


def from_data_list(data_list):
    return torch.stack(data_list)


class DataLoaderMasking(DataLoader):
    def __init__(self, dataset, batch_size=1, shuffle=True, **kwargs):
        super().__init__(dataset, batch_size, shuffle,
                         collate_fn=lambda data_list: from_data_list(data_list), **kwargs)


class DataLoaderMaskingPred(DataLoader):
    def __init__(self, dataset, batch_size=1, shuffle=True, mask_rate=0.0, **kwargs):
        self._transform = MaskAtom(mask_rate)
        super().__init__(dataset, batch_size, shuffle, collate_fn=self.collate_fn, **kwargs)

    def collate_fn(self, batches):
        return from_data_list([self._transform(x) for x in batches])
