"""Mimics A2Summ datasets.py:128 (h5py.File kept on self.video_dict) and ScoreHMR
score_hmr/datasets/image_dataset.py:54 (self.data = np.load(<file>.npz), an NpzFile that keeps
the open zip file), with safe look-alikes (arrays copied out of a local NpzFile,
json.load(open(...)) / pickle.load(open(...)) keeping only the parsed value)."""
import json
import pickle
import h5py
import numpy as np
import torch
from torch.utils.data import Dataset


class VideoSummDataset(Dataset):            # A2Summ
    def __init__(self, keys, h5_path):
        self.keys = keys
        self.video_dict = h5py.File(h5_path, "r")

    def __len__(self):
        return len(self.keys)

    def __getitem__(self, i):
        return torch.from_numpy(self.video_dict[self.keys[i]]["features"][...])


class ImageDataset(Dataset):                # ScoreHMR
    def __init__(self, npz_path, keep_npz=True):
        if keep_npz:
            self.data = np.load(npz_path)   # NpzFile: holds an open file
            self.center = self.data["center"]
        else:
            pred_file = np.load(npz_path)   # local; only arrays kept
            self.center = pred_file["center"].astype(np.float32)

    def __len__(self):
        return len(self.center)

    def __getitem__(self, i):
        return torch.from_numpy(np.asarray(self.center[i], dtype=np.float32))


class MSMODataset(Dataset):                 # A2Summ json / ScoreHMR pickle look-alikes
    def __init__(self, json_path, pkl_path):
        self.gt = json.load(open(json_path))
        self.data = pickle.load(open(pkl_path, "rb"))
        self.ids = list(self.gt)

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return torch.tensor(self.data[self.ids[i]], dtype=torch.float32)


def worker_init_fn(worker_id):
    np.random.seed(worker_id)
