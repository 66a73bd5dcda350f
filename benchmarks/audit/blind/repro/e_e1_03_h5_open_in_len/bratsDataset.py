"""Mimics PartiallyReversibleUnet bratsDataset.py: the h5py file is opened "lazily" by
openFileIfNotOpen(), but __len__ calls it too, and DataLoader(shuffle=True) calls len() in the
parent (RandomSampler.__init__), so the open handle is pickled for the workers."""
import h5py
import numpy as np
import torch.utils.data


class BratsDataset(torch.utils.data.Dataset):
    def __init__(self, filePath, len_opens_file=True):
        self.filePath = filePath
        self.file = None
        self.len_opens_file = len_opens_file
        if not len_opens_file:
            with h5py.File(filePath, "r") as f:          # safe twin: length read, file closed
                self.n = f["images_train"].shape[0]

    def __getitem__(self, index):
        self.openFileIfNotOpen()
        return self.file["images_train"][index, ...]

    def __len__(self):
        if not self.len_opens_file:
            return self.n
        self.openFileIfNotOpen()
        return self.file["images_train"].shape[0]

    def openFileIfNotOpen(self):
        if self.file is None:
            self.file = h5py.File(self.filePath, "r")
