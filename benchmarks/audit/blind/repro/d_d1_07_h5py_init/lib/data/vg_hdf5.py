# Mimics graph-rcnn lib/data/vg_hdf5.py: h5py.File kept on self.im_h5 (and a dataset of it on self.im_refs) in
# __init__; class lists sorted with a key lambda (called in __init__, not kept).  The `lazy` twin opens the
# file in __getitem__.  SunrgbdLike mimics Group-Free-3D's pickle.load inside a with-block (file closed).
import json
import os
import pickle
import h5py
import torch
from torch.utils.data import Dataset


class vg_hdf5(Dataset):
    def __init__(self, data_dir, lazy=False):
        self.image_file = os.path.join(data_dir, "imdb_1024.h5")
        self.im_h5 = None
        if not lazy:
            self.im_h5 = h5py.File(self.image_file, "r")
            self.im_refs = self.im_h5["images"]
        self.info = json.load(open(os.path.join(data_dir, "dicts.json"), "r"))
        self.class_to_ind = self.info["label_to_idx"]
        self.ind_to_classes = sorted(self.class_to_ind, key=lambda k: self.class_to_ind[k])

    def __len__(self):
        return 4

    def __getitem__(self, i):
        if self.im_h5 is None:
            with h5py.File(self.image_file, "r") as h:
                return torch.as_tensor(h["images"][i])
        return torch.as_tensor(self.im_refs[i])


class SunrgbdLike(Dataset):
    def __init__(self, data_dir):
        with open(os.path.join(data_dir, "bboxes.pkl"), "rb") as f:
            self.bboxes_list = pickle.load(f)

    def __len__(self):
        return len(self.bboxes_list)

    def __getitem__(self, i):
        return torch.tensor(self.bboxes_list[i])


def build(data_dir):
    with h5py.File(os.path.join(data_dir, "imdb_1024.h5"), "w") as h:
        h["images"] = [[i, i] for i in range(4)]
    with open(os.path.join(data_dir, "dicts.json"), "w") as f:
        json.dump({"label_to_idx": {"car": 2, "person": 1}}, f)
    with open(os.path.join(data_dir, "bboxes.pkl"), "wb") as f:
        pickle.dump([[i, i, i] for i in range(4)], f)
