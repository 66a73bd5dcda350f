"""Mimics train_ddgan.py: guarded main starts torch.multiprocessing Process(target=init_processes,
args=(..., train, args)) (module-level functions); train() builds the dataset and a
DataLoader(num_workers=4). Cases:
  lmdb_init     --dataset celeba_256: LMDBDataset opens lmdb in __init__      -> spawn: TypeError cannot pickle 'Environment' object
  lazy_open     same loader, the lmdb handle is opened lazily in __getitem__  -> ok
  process_entry outer Process(target=module-level fn) with the lazy dataset   -> ok
"""
import os, sys, tempfile
import torch
from torch.multiprocessing import Process
from datasets_prep.lmdb_datasets import LMDBDataset, LazyLMDBDataset, make_lmdb


def train(rank, case, root):
    cls = LMDBDataset if case == "lmdb_init" else LazyLMDBDataset
    dataset = cls(root)
    loader = torch.utils.data.DataLoader(dataset, batch_size=2, shuffle=False, num_workers=2, drop_last=True)
    n = 0
    for x, y in loader:
        n += x.shape[0]
    print("OK", case, n, flush=True)


def init_processes(rank, fn, case, root):
    fn(rank, case, root)


if __name__ == '__main__':
    case = sys.argv[1]
    root = tempfile.mkdtemp()
    make_lmdb(os.path.join(root, 'train.lmdb'))
    if case == "process_entry":
        p = Process(target=init_processes, args=(0, train, "lazy_open", root))
        p.start(); p.join()
        sys.exit(p.exitcode)
    init_processes(0, train, case, root)
