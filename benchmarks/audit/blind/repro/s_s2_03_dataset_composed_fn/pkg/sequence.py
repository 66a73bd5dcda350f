import numpy as np
import torch
from .preprocessing import get_preprocess_fn


class SequenceDataset(torch.utils.data.Dataset):
    def __init__(self, preprocess_fns=[], picklable=False):
        self.preprocess_fn = get_preprocess_fn(preprocess_fns, picklable)   # sequence.py:20
        self.data = self.preprocess_fn(np.arange(64, dtype=np.float32).reshape(16, 4))

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return self.data[i]
