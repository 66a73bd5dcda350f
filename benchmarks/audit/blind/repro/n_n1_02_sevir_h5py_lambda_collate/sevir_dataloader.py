import h5py
import numpy as np


class SEVIRDataLoader:
    """Plain class (not a torch Dataset) that opens its HDF5 files in __init__ (open_in_init=True,
    as earthformer's sevir_dataloader.py:225/271) or on first use (open_in_init=False)."""

    def __init__(self, path, open_in_init=True, catalog_filter=None):
        self.path = path
        if catalog_filter == 'default':
            self.catalog_filter = lambda c: c.pct_missing == 0
        else:
            self.catalog_filter = catalog_filter
        self._hdf_files = {}
        if open_in_init:
            self._open_files()

    def _open_files(self):
        self._hdf_files = {"f": h5py.File(self.path, "r")}

    def _idx_sample(self, index):
        if not self._hdf_files:
            self._open_files()
        return {"vil": np.array(self._hdf_files["f"]["vil"][index])}

    def __len__(self):
        with h5py.File(self.path, "r") as f:
            return f["vil"].shape[0]
