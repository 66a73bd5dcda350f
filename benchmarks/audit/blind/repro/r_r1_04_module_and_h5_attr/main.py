# mimics HTS-AT main.py train() and htsat_esc_training.ipynb cells 5-9 (data_prep class defined in the notebook)
import os
import sys
import tempfile
import h5py
import numpy as np
from torch.utils.data import DataLoader
import esc_config as config
from data_generator import SEDDataset, LazySEDDataset, ESC_Dataset


class data_prep:  # stands for the notebook-defined pl.LightningDataModule: only its datasets reach the workers
    def __init__(self, train_dataset):
        self.train_dataset = train_dataset

    def train_dataloader(self):
        return DataLoader(self.train_dataset, num_workers=config.num_workers, batch_size=config.batch_size)


def make_h5():
    path = os.path.join(tempfile.mkdtemp(), "idx.h5")
    with h5py.File(path, "w") as f:
        f["waveform"] = np.random.randn(8, 64).astype("float32")
    return path


def main(case):
    full = [{"waveform": np.random.randn(64).astype("float32")} for _ in range(8)]
    if case == "esc_config_module":
        ds = ESC_Dataset(full, config)
    elif case == "sed_config_module":
        ds = SEDDataset(make_h5(), config)
    elif case == "sed_h5_after_config_fixed":
        ds = SEDDataset(make_h5(), config, keep_module=False)
    elif case == "lazy_h5":
        ds = LazySEDDataset(make_h5())
    elif case == "notebook_datamodule":
        ds = LazySEDDataset(make_h5())
    else:
        raise SystemExit("unknown case")
    for b in data_prep(ds).train_dataloader():
        pass
    print("OK", case)


if __name__ == "__main__":
    main(sys.argv[1])
