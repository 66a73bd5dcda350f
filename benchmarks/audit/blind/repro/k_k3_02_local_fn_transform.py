"""Shape: a function defined inside another function, stored as a dataset transform that DataLoader
workers pickle (Transfer-Learning-Library examples/domain_adaptation/wilds_text/utils.py get_transform()
returns local `transform`, kept by a WILDS subset, iterated with --workers 4).
Safe twins: a local function / lambda used only in the parent (image_classification/utils.py
concat_dataset, suncet data_manager.py init_transform, snn_eval.py snn, cycada.py Lambda(lambda ...) in
predict), and a module-level transform.
Cases: local_fn (hazard), parent_only (safe), module_fn (safe).
"""
import sys
import torch
from torch.utils.data import Dataset, DataLoader


class Subset(Dataset):
    def __init__(self, data, transform=None):
        self.data = data
        self.transform = transform

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        x = self.data[i]
        return self.transform(x) if self.transform else x


def get_transform(max_len):
    def transform(x):                      # local function (hazard line)
        return x[:max_len] * 1.0
    return transform


def double(x):
    return x * 2.0


def build(kind, n):
    def concat_dataset(parts, **kw):        # local function used only in the parent
        return Subset(torch.cat(parts), **kw)
    post = (lambda t: t.sum())              # lambda used only in the parent
    ds = concat_dataset([torch.ones(n, 3), torch.zeros(n, 3)], transform=double)
    return ds, post


def main(case):
    if case == "local_fn":
        ds = Subset(torch.ones(8, 5), transform=get_transform(3))
        post = (lambda t: t.sum())
    elif case == "parent_only":
        ds, post = build("x", 4)
    elif case == "module_fn":
        ds = Subset(torch.ones(8, 5), transform=double)
        post = (lambda t: t.sum())
    else:
        raise SystemExit("unknown case " + case)
    loader = DataLoader(ds, batch_size=4, num_workers=2)
    print("OK", case, [float(post(b)) if callable(post) else 0 for b in loader])


if __name__ == "__main__":
    main(sys.argv[1])
