"""deepvoice3_pytorch train.py shape: a module-level settings object (hparams) is filled
from a preset/--hparams under the main guard; the Dataset's __getitem__ (run in DataLoader
workers) reads the setting from the module-level object again.  Under spawn the worker
re-imports the module and sees the defaults, not the parent's preset.
Cases: hazard (worker reads module-level settings), safe (settings value stored on the
dataset in __init__ in the parent)."""
import sys
import torch
from torch.utils.data import DataLoader, Dataset


class HParams:                      # stands in for tfcompat HParam
    def __init__(self, **kw):
        self.__dict__.update(kw)

    def parse_json(self, d):
        self.__dict__.update(d)


hparams = HParams(frontend="en", num_workers=2)


class TextDataSource(Dataset):
    def __init__(self, store):
        self.store = store
        self.frontend = hparams.frontend if store else None

    def __len__(self):
        return 4

    def __getitem__(self, i):
        fe = self.frontend if self.store else hparams.frontend
        if fe != "ko":
            raise RuntimeError(f"worker used frontend {fe!r}, parent configured 'ko'")
        return torch.tensor(i)


if __name__ == "__main__":
    case = sys.argv[1]
    hparams.parse_json({"frontend": "ko"})          # preset deepvoice3_niklm.json
    ds = TextDataSource(store=(case == "safe"))
    loader = DataLoader(ds, batch_size=2, num_workers=hparams.num_workers)
    print([b.tolist() for b in loader])
    print("OK", case)
