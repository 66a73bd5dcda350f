# run as: python -c "exec(open('notebook_cells.py').read())"  (no main file, like a Jupyter kernel: __main__ is not re-imported)
# mimics htsat_esc_training.ipynb cells 5-9: data_prep is defined in the notebook; only the dataset is pickled
import multiprocessing as mp
mp.set_start_method("spawn", force=True)
import sys, os
sys.path.insert(0, os.getcwd())
from torch.utils.data import DataLoader
import esc_config as config
from main import make_h5
from data_generator import LazySEDDataset, ESC_Dataset
import numpy as np

class data_prep:
    def __init__(self, train_dataset):
        self.train_dataset = train_dataset
    def train_dataloader(self):
        return DataLoader(dataset=self.train_dataset, num_workers=config.num_workers, batch_size=config.batch_size)

CASE = os.environ.get("CASE", "notebook_datamodule")
if CASE == "notebook_datamodule":
    ds = LazySEDDataset(make_h5())
else:  # notebook_esc: the notebook's own ESC_Dataset(config=esc_config module)
    ds = ESC_Dataset([{"waveform": np.random.randn(64).astype("float32")} for _ in range(8)], config)
for b in data_prep(ds).train_dataloader():
    pass
print("OK", CASE)
