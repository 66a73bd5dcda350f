# Notebook stand-in: run as `python -c "exec(open('cells.py').read())" CASE METHOD` so __main__ has no __file__ (as in a Jupyter kernel);
# multiprocessing is forced to spawn (Windows/macOS default).
# Cases: module_class (safe: dataset and batch sampler from datasets.py, a notebook function used only in the parent),
#        notebook_class (twin: a Dataset class defined in the notebook reaches the workers: fails under spawn).
import sys, os
sys.path.insert(0, os.getcwd())
import multiprocessing as mp
import torch
from torch.utils.data import DataLoader, Dataset
from datasets import TripletMNIST, BalancedBatchSampler

case = sys.argv[1] if len(sys.argv) > 1 else "module_class"
method = sys.argv[2] if len(sys.argv) > 2 else "spawn"


def extract_embeddings(dataloader):      # notebook-defined, runs in the parent only
    out = []
    for batch, _ in dataloader:
        out.append(batch[0])
    return torch.cat(out)


class NotebookDataset(Dataset):          # notebook-defined class sent to the workers
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return (torch.tensor(float(i)),), []


ctx = mp.get_context(method)
if case == "module_class":
    ds = TripletMNIST()
    loader = DataLoader(ds, batch_size=4, num_workers=1, multiprocessing_context=ctx)
    sampled = DataLoader(ds, batch_sampler=BalancedBatchSampler(ds.labels, 4), num_workers=1, multiprocessing_context=ctx)
    print("embeddings", tuple(extract_embeddings(loader).shape), "batches", sum(1 for _ in sampled))
else:
    loader = DataLoader(NotebookDataset(), batch_size=2, num_workers=1, multiprocessing_context=ctx)
    print("embeddings", tuple(extract_embeddings(loader).shape))
