"""Usage: lookalikes.py CASE -- look-alikes that run under spawn (and two hazard twins).
  partial_collate      : collate_fn=functools.partial(module_fn, r=..., hparams=HParams obj)  (RTVC synthesizer/train.py:139-140)
  lambda_collate       : hazard twin: collate_fn=lambda batch: fn(batch, r, hparams) (RTVC before the #669 fix)
  bound_collate_subclass: DataLoader subclass passing collate_fn=self.collate (RTVC speaker_verification_dataset.py:47)
  partial_pool         : Pool(2).imap(functools.partial(module_fn, ...)) in a guarded main (RTVC encoder/preprocess.py:122)
  local_lambda_in_method: a lambda local to a method the worker calls, never stored (RTVC random_cycler.py:19)
  local_def_init_only  : a local def used only inside __init__ to precompute data (mongolian colored_noise.py:26)
  module_class_collate : collate_fn=instance of a module-level class (crnn alignCollate, train.py:70;
                         vietocr ImgAugTransformV2 aug.py:62; mongolian collate_fn)
  parent_lambda        : filter(lambda p: p.requires_grad, params) for the optimizer in the parent (mongolian train.py:219)
"""
import functools
import random
import sys
from multiprocessing import Pool

import torch
from torch.utils.data import DataLoader, Dataset


class HParams:
    def __init__(self, **kw):
        self.__dict__.update(kw)


hparams = HParams(pad=0, n=3)


def collate_synth(batch, r, hparams):
    return torch.tensor(batch) * r + hparams.pad


class RandomCycler:
    def __init__(self, items):
        self.items = list(items)

    def sample(self, k):
        shuffle = lambda l: random.sample(l, len(l))  # local lambda, not stored
        return shuffle(self.items)[:k]


class CyclerDataset(Dataset):
    def __init__(self):
        self.cycler = RandomCycler(range(10))

    def __len__(self):
        return 6

    def __getitem__(self, i):
        return self.cycler.sample(1)[0]


class NoiseDataset(Dataset):
    def __init__(self, n=6):
        def compute(x):  # local def used only here
            return [v * 2 for v in x]
        self.noises = compute(list(range(n)))

    def __len__(self):
        return len(self.noises)

    def __getitem__(self, i):
        return self.noises[i]


class SVDataLoader(DataLoader):
    def __init__(self, dataset, k, num_workers=0):
        self.k = k
        super().__init__(dataset=dataset, batch_size=2, shuffle=False, num_workers=num_workers,
                         collate_fn=self.collate)

    def collate(self, items):
        return [x * self.k for x in items]


class AlignCollate:
    def __init__(self, h=2):
        self.h = h

    def __call__(self, batch):
        return torch.tensor(batch) + self.h


def work(x, scale):
    return x * scale


def main(case):
    data = list(range(6))
    if case == "partial_collate":
        dl = DataLoader(data, batch_size=2, num_workers=2, collate_fn=functools.partial(collate_synth, r=2, hparams=hparams))
    elif case == "lambda_collate":
        r = 2
        dl = DataLoader(data, batch_size=2, num_workers=2, collate_fn=lambda b: collate_synth(b, r, hparams))
    elif case == "bound_collate_subclass":
        dl = SVDataLoader(data, 3, num_workers=2)
    elif case == "partial_pool":
        with Pool(2) as pool:
            print("OK", case, list(pool.imap(functools.partial(work, scale=3), data)))
        return
    elif case == "local_lambda_in_method":
        dl = DataLoader(CyclerDataset(), batch_size=2, num_workers=2)
    elif case == "local_def_init_only":
        dl = DataLoader(NoiseDataset(), batch_size=2, num_workers=2)
    elif case == "module_class_collate":
        dl = DataLoader(data, batch_size=2, num_workers=2, collate_fn=AlignCollate())
    elif case == "parent_lambda":
        model = torch.nn.Linear(2, 2)
        opt = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1)
        dl = DataLoader(data, batch_size=2, num_workers=2)
    else:
        raise SystemExit("unknown case")
    print("OK", case, [b if isinstance(b, list) else b.tolist() for b in dl])


if __name__ == "__main__":
    main(sys.argv[1])
