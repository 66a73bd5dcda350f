"""Mimics pytorch-wavenet audio_data.py: WavenetDataset keeps np.load(<.npz>, mmap_mode='r')
(an NpzFile holding an open zip/file handle) in __init__; safe twin copies arrays out."""
import os
import numpy as np
import torch


class WavenetDataset(torch.utils.data.Dataset):
    def __init__(self, dataset_file, keep_npz=True):
        if not os.path.isfile(dataset_file):
            np.savez(dataset_file, arr_0=np.arange(64, dtype=np.float32))
        print("building dataset in pid", os.getpid(), flush=True)
        npz = np.load(dataset_file, mmap_mode='r')
        self.data = npz if keep_npz else {k: npz[k] for k in npz.files}
        self._length = len(self.data['arr_0']) // 8

    def __len__(self):
        return self._length

    def __getitem__(self, i):
        return torch.from_numpy(np.array(self.data['arr_0'][i * 8:(i + 1) * 8]))
