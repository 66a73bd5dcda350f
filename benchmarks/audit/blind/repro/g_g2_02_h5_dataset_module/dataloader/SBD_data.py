import os
import h5py
import torch
import torch.utils.data as data


class SBDData(data.Dataset):
    def __init__(self, hdf5_file_name, lazy=False):
        self.hdf5_file_name = hdf5_file_name
        self.h5_f = None
        if not lazy:
            self.h5_f = h5py.File(hdf5_file_name, 'r')   # hazard (CASENet dataloader/SBD_data.py:29)
        with h5py.File(hdf5_file_name, 'r') as f:
            self.n = f['labels'].shape[0]

    def __getitem__(self, index):
        if self.h5_f is None:
            self.h5_f = h5py.File(self.hdf5_file_name, 'r')  # safe twin: opened in the worker
        return torch.from_numpy(self.h5_f['labels'][index])

    def __len__(self):
        return self.n
