# mimics finetune.py: guarded script; builds the loader from the dataset module and iterates it
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
from fsds import cropdisease_like


def finetune(novel_loader):
    n = 0
    for x, y in novel_loader:
        params = [torch.zeros(1, requires_grad=True), torch.zeros(1)]
        opt = torch.optim.SGD(filter(lambda p: p.requires_grad, params), lr=0.01)  # parent-only lambda (safe)
        n += 1
    return n


if __name__ == "__main__":
    workers = 0 if sys.argv[-1] == "zero_workers" else 2
    datamgr = cropdisease_like.SetDataManager(workers=workers)
    print("OK episodes", finetune(datamgr.get_data_loader()))
