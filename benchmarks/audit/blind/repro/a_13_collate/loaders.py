"""DataLoader subclasses that pass a lambda collate_fn from their __init__ (pretrain-gnns dataloader.py)."""
import torch
import torch.utils.data


class DataLoaderMasking(torch.utils.data.DataLoader):
    def __init__(self, dataset, batch_size=1, shuffle=True, **kwargs):
        super().__init__(dataset, batch_size, shuffle,
                         collate_fn=lambda data_list: torch.stack(data_list), **kwargs)
