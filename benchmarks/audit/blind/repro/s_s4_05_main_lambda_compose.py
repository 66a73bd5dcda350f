"""Mimics pixel-cnn-pp main.py: a module-level lambda in the main script (rescaling) put in a
transforms.Compose held by the dataset, DataLoader(num_workers=1). Cases:
  main_lambda   guarded; module-level lambda of __main__ in Compose -> spawn: PicklingError (attribute lookup <lambda> on __main__ failed)
  main_def      guarded; module-level def instead                  -> ok
  unguarded     no main guard; module-level epoch loop (named def) -> spawn: bootstrapping RuntimeError
  parent_lambda guarded; loss_op lambda used only in the parent    -> ok
"""
import sys
import torch
from torch.utils.data import Dataset, DataLoader


class Compose:
    def __init__(self, ts):
        self.ts = ts
    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x


class TinyMNIST(Dataset):
    def __init__(self, transform):
        self.transform = transform
    def __len__(self):
        return 4
    def __getitem__(self, i):
        return self.transform(torch.rand(1, 4, 4)), 0


rescaling = lambda x: (x - .5) * 2.


def rescaling_def(x):
    return (x - .5) * 2.


kwargs = {'num_workers': 1, 'drop_last': True}
case = sys.argv[1] if len(sys.argv) > 1 else "main_lambda"

if case == "unguarded":
    train_loader = DataLoader(TinyMNIST(Compose([rescaling_def])), batch_size=2, **kwargs)
    for epoch in range(1):  # module-level loop
        for batch_idx, (inp, _) in enumerate(train_loader):
            pass
    print("OK", case)

if __name__ == "__main__" and case != "unguarded":
    fn = rescaling if case == "main_lambda" else rescaling_def
    train_loader = DataLoader(TinyMNIST(Compose([fn])), batch_size=2, **kwargs)
    loss_op = lambda real, fake: ((real - fake) ** 2).mean()
    for batch_idx, (inp, _) in enumerate(train_loader):
        loss = loss_op(inp, inp * 0)
    print("OK", case, float(loss))
