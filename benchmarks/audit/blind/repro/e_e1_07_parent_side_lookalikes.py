"""Look-alikes that run under spawn (safe rows) and one failing twin.
  gen_init              : dataset keeps a generator made in __init__ (fails: the shape of
                          pytorch-meta-dataset issue #5, fixed in the extracted code)
  gen_lazy              : the generator is made in get_next() inside the worker (pipeline.py:92)
  logger_on_trainer     : a Logger holding sys.stdout lives on the trainer, not the dataset (BIT_CD)
  pickle_closed_in_init : __init__ opens a pickle file, loads it and closes it (deepvecfont dataloader.py:30)
  module_collate        : module-level collate_fn (sidechainnet collate.py:13)"""
import os
import pickle
import sys
import tempfile

import torch
from torch.utils.data import DataLoader, Dataset, IterableDataset


def cycle_(iterable):
    it = iter(iterable)
    while True:
        try:
            yield next(it)
        except StopIteration:
            it = iter(iterable)


class EpisodicDataset(IterableDataset):
    def __init__(self, lazy):
        self.class_datasets = [list(range(3)), list(range(5))]
        if not lazy:
            self.class_datasets = [cycle_(d) for d in self.class_datasets]

    def get_next(self, cid):
        try:
            return next(self.class_datasets[cid])
        except (StopIteration, TypeError):
            self.class_datasets[cid] = cycle_(self.class_datasets[cid])
            return next(self.class_datasets[cid])

    def __iter__(self):
        for k in range(4):
            yield torch.tensor([self.get_next(0), self.get_next(1)])


class Logger:
    def __init__(self):
        self.terminal = sys.stdout

    def write(self, m):
        self.terminal.write(m)


class PlainDataset(Dataset):
    def __init__(self, pkl_path=None):
        if pkl_path:
            pkl_f = open(pkl_path, 'rb')
            self.all_fonts = pickle.load(pkl_f)
            pkl_f.close()
        else:
            self.all_fonts = list(range(8))

    def __len__(self):
        return len(self.all_fonts)

    def __getitem__(self, i):
        return torch.tensor(float(self.all_fonts[i]))


def protein_batch_collate_fn(items):
    return torch.stack(items)


class Trainer:
    def __init__(self, loader):
        self.loader = loader
        self.logger = Logger()

    def train(self):
        n = 0
        for b in self.loader:
            n += 1
        self.logger.write("batches %d\n" % n)


def main(case):
    if case in ("gen_init", "gen_lazy"):
        loader = DataLoader(EpisodicDataset(lazy=(case == "gen_lazy")), batch_size=2, num_workers=2)
    elif case == "logger_on_trainer":
        loader = DataLoader(PlainDataset(), batch_size=4, shuffle=True, num_workers=2)
    elif case == "pickle_closed_in_init":
        p = os.path.join(tempfile.mkdtemp(), "train_all.pkl")
        with open(p, "wb") as f:
            pickle.dump(list(range(8)), f)
        loader = DataLoader(PlainDataset(p), batch_size=4, shuffle=True, num_workers=2)
    elif case == "module_collate":
        loader = DataLoader(PlainDataset(), batch_size=4, num_workers=2, collate_fn=protein_batch_collate_fn)
    else:
        raise SystemExit(__doc__)
    Trainer(loader).train()
    print("OK", case)


if __name__ == "__main__":
    main(sys.argv[1])
