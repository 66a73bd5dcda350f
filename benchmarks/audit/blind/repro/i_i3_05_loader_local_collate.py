"""Shape (schnetpack-gschnet): a DataLoader whose collate_fn is a function defined inside a method
(`def _identity(x): return x` in setup) or a lambda (`collate_fn=lambda x: x`), with num_workers>0.
cases: local_def (WSP202), lambda (WSP201), safe_module (module-level collate), safe_parent_lambda
(a lambda used only in the parent: sorted(key=lambda ...) / replicate_module(lambda: ...))"""
import sys
import torch
from torch.utils.data import Dataset, DataLoader


class Check:
    def __call__(self, x):
        return x % 2 == 0


class AtomsData(Dataset):
    def __init__(self):
        self.transforms = [Check()]

    def __len__(self):
        return 10

    def __getitem__(self, i):
        v = i
        for t in self.transforms:
            v = t(v)
        return v


def identity(x):
    return x


class DataModule:
    def __init__(self, num_workers=6):
        self.num_preprocessing_workers = num_workers

    def setup(self, how):
        ds = AtomsData()
        if how == "local_def":
            def _identity(x):
                return x
            fn = _identity
        elif how == "lambda":
            fn = lambda x: x
        else:
            fn = identity
        loader = DataLoader(ds, batch_size=5, num_workers=self.num_preprocessing_workers, collate_fn=fn)
        out = []
        for b in loader:
            out.extend(b)
        return out


if __name__ == "__main__":
    case = sys.argv[1]
    if case == "safe_parent_lambda":
        names = sorted(["b10", "a2", "c1"], key=lambda x: int(x[1:]))
        mods = [(lambda: torch.nn.Linear(2, 2))() for _ in range(2)]
        print(names, len(mods))
    else:
        print(sum(DataModule(num_workers=2).setup(case)))
    print("OK", case)
