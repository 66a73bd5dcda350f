"""Runs 'cells' the way a Jupyter kernel does: in a fresh __main__ namespace with no __file__,
so spawned workers get a bare __main__ (Getting-Things-Done-with-Pytorch 08 notebook, cell 54
GPReviewDataset + cell 59 num_workers=4; 03 notebook ImageFolder; pytorch-wavenet WaveNet_demo
cell 9 callback kept by the trainer in the parent).
usage: python run_cells.py CASE spawn|fork ; CASE = nb_dataset | library_dataset | nb_callback_parent"""
import multiprocessing as mp
import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
CASE, METHOD = sys.argv[1], sys.argv[2]
mp.set_start_method(METHOD, force=True)

CELLS = {
    "nb_dataset": ['''
from torch.utils.data import Dataset, DataLoader
import torch
class GPReviewDataset(Dataset):
    def __len__(self): return 8
    def __getitem__(self, i): return torch.tensor(float(i))
''', '''
def create_data_loader(batch_size):
    return DataLoader(GPReviewDataset(), batch_size=batch_size, num_workers=4)
train_data_loader = create_data_loader(4)
''', '''
data = next(iter(train_data_loader))
print("OK nb_dataset", data.tolist())
'''],
    "library_dataset": ['''
from torch.utils.data import DataLoader
from libdata import LibDataset
data_loaders = {d: DataLoader(LibDataset(), batch_size=4, shuffle=True, num_workers=4) for d in ["train"]}
''', '''
print("OK library_dataset", sum(float(b.sum()) for b in data_loaders["train"]))
'''],
    "nb_callback_parent": ['''
from torch.utils.data import DataLoader
from libdata import LibDataset
def generate_and_log_samples(step):
    print("generated at", step)
class Trainer:                      # stands in for wavenet_training.WavenetTrainer (library)
    pass
''', '''
trainer = Trainer(); trainer.logger = generate_and_log_samples; trainer.dataset = LibDataset()
loader = DataLoader(trainer.dataset, batch_size=4, shuffle=True, num_workers=2)
for x in loader: trainer.logger(0)
print("OK nb_callback_parent")
'''],
}

main = types.ModuleType("__main__")        # no __file__, like ipykernel's user namespace
sys.modules["__main__"] = main
for src in CELLS[CASE]:
    exec(compile(src, "<cell>", "exec"), main.__dict__)
