# mimics HTS-AT data_generator.py
import h5py
import numpy as np
from torch.utils.data import Dataset


class SEDDataset(Dataset):
    def __init__(self, index_path, config, keep_module=True):
        self.config = config if keep_module else {"clip_samples": config.clip_samples}
        self.fp = h5py.File(index_path, "r")          # open handle kept on the dataset
        self.total_size = len(self.fp["waveform"])

    def __getitem__(self, i):
        return self.fp["waveform"][i]

    def __len__(self):
        return self.total_size


class LazySEDDataset(Dataset):
    # safe twin (PaSST audioset/dataset.py): length read with a closed file, handle opened in the worker
    def __init__(self, index_path):
        self.index_path = index_path
        with h5py.File(index_path, "r") as f:
            self.total_size = len(f["waveform"])
        self.fp = None

    def __getitem__(self, i):
        if self.fp is None:
            self.fp = h5py.File(self.index_path, "r")
        return self.fp["waveform"][i]

    def __len__(self):
        return self.total_size


class ESC_Dataset(Dataset):
    def __init__(self, dataset, config, eval_mode=False):
        self.dataset = dataset
        self.config = config                          # the settings module kept on the dataset
        self.total_size = len(dataset)

    def __getitem__(self, i):
        return self.dataset[i]["waveform"][: self.config.clip_samples]

    def __len__(self):
        return self.total_size
