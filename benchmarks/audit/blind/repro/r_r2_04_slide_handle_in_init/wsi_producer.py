# mimics NCRF wsi/data/wsi_producer.py: GridWSIPatchDataset._preprocess (called by __init__) opens the slide.
# openslide.OpenSlide keeps a ctypes pointer (`ValueError: ctypes objects containing pointers cannot be pickled`);
# FakeSlide holds the same kind of ctypes pointer.
import ctypes

import numpy as np
from torch.utils.data import Dataset


class FakeSlide:
    def __init__(self, path):
        self._osr = ctypes.pointer(ctypes.c_int(7))   # like openslide's _OpenSlide handle
        self.level_dimensions = [(64, 64)]

    def read_region(self, loc, level, size):
        return np.zeros((size[1], size[0], 3), np.float32) + self._osr.contents.value


class GridWSIPatchDataset(Dataset):
    def __init__(self, wsi_path, lazy=False):
        self._wsi_path = wsi_path
        self._slide = None
        self._coords = [(i, i) for i in range(8)]
        if not lazy:
            self._slide = FakeSlide(self._wsi_path)     # <- the hazard (NCRF wsi_producer.py:46)

    def __len__(self):
        return len(self._coords)

    def __getitem__(self, idx):
        if self._slide is None:
            self._slide = FakeSlide(self._wsi_path)     # lazy open in the worker: safe
        x, y = self._coords[idx]
        return self._slide.read_region((x, y), 0, (4, 4)).transpose(2, 0, 1)
