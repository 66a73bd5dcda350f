# Emulates notebook cells: a Jupyter kernel's __main__ has no __file__, so a spawned worker does
# not re-import it and cannot find names defined in "cells".
# cases: nb_dataset_class  (PAE cell 15: notebook Dataset class given to DataLoader(num_workers=8))  hazard WSP206
#        nb_collate        (PAE cell 19: notebook function as collate_fn, dataset from a module)     hazard WSP206
#        nb_pool_func      (TransformerVAE notebooks: notebook def passed to utils.parallel_f Pool) hazard WSP206
#        nb_sampler        (PAE cell 18: notebook Sampler class used as batch_sampler; module dataset
#                           and collate) safe: the batch sampler runs in the parent, never pickled
#        module_collate    (safe twin of nb_collate: collate imported from a module)
import sys, __main__
case = sys.argv[1]
if hasattr(__main__, "__file__"):
    del __main__.__file__
import torch
from torch.utils.data import Dataset, DataLoader, Sampler
import nbmods

# --- "cell 15"
class PrimarySequences(Dataset):
    def __init__(self, dataset):
        self.sequences = dataset
    def __len__(self):
        return len(self.sequences)
    def __getitem__(self, idx):
        return self.sequences[idx], self.sequences[idx].shape[0]

# --- "cell 18"
class BucketDataset(Sampler):
    def __init__(self, inputs, batch_size):
        self.ind_n_len = [(i, p.shape[0]) for i, p in enumerate(inputs)]
        self.batch_size = batch_size
    def __iter__(self):
        idx = [i for i, _ in self.ind_n_len]
        for k in range(0, len(idx), self.batch_size):
            yield idx[k:k + self.batch_size]
    def __len__(self):
        return (len(self.ind_n_len) + self.batch_size - 1) // self.batch_size

# --- "cell 19"
def one_hotter(batch):
    seqs, lengths = list(zip(*batch))
    return torch.stack(seqs), torch.tensor(lengths)

def tokenize(smi):
    return [0] + [smi_dic[ch] for ch in smi] + [1]

primary = [torch.arange(5) for _ in range(8)]
if case == "nb_pool_func":
    from utils import parallel_f, get_dic
    smi_list = ["CCO", "N#N"]
    smi_dic = get_dic(smi_list)
    print("OK", parallel_f(tokenize, smi_list))
else:
    if case == "nb_dataset_class":
        ds, collate, sampler = PrimarySequences(primary), nbmods.module_collate, None
    elif case == "nb_collate":
        ds, collate, sampler = nbmods.ModSequences(primary), one_hotter, None
    elif case == "nb_sampler":
        ds, collate, sampler = nbmods.ModSequences(primary), nbmods.module_collate, BucketDataset(primary, 4)
    elif case == "module_collate":
        ds, collate, sampler = nbmods.ModSequences(primary), nbmods.module_collate, None
    if sampler is not None:
        dl = DataLoader(ds, batch_size=1, batch_sampler=sampler, num_workers=2, collate_fn=collate)
    else:
        dl = DataLoader(ds, batch_size=4, num_workers=2, collate_fn=collate)
    n = sum(1 for _ in dl)
    print("OK", n)
