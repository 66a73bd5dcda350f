"""Shape j_j1_02 (pix2pixHD train.py/test.py/encode_features.py/precompute_feature_maps.py,
SN-GAN train*.py, pytorch-inpainting-with-partial-conv train.py, RankSRGAN codes/test.py).
Usage: python train.py CASE
  unguarded        module-level epoch loop over a DataLoader(num_workers=2) built in data_factory -> WSP101
  unguarded_iter   module-level iter(DataLoader(num_workers=2)) then next() (partial-conv train.py) -> WSP101
  heavy            like unguarded, with a module-level "model load" before the loop -> WSP103 (runs again in each child)
  guarded          the same loop under if __name__ == "__main__" -> safe
  no_workers       unguarded script that indexes the dataset directly, no DataLoader iteration (partial-conv test.py) -> safe
  built_not_iterated  module-level DataLoader(num_workers=2) never iterated (SN-GAN test.py) -> safe
  start_method_in_fn  guarded script; set_start_method('spawn') only inside init_dist() (RankSRGAN train.py) -> safe
"""
import os
import sys
import torch
import torch.multiprocessing as mp
import data_factory

CASE = sys.argv[1]
print("import of train.py in pid", os.getpid(), "as", __name__, flush=True)


def load_model():
    print("HEAVY model load in pid", os.getpid(), flush=True)
    return torch.nn.Linear(2, 2)


def run():
    loader = data_factory.create_dataloader(2)
    total = 0.0
    for epoch in range(2):
        for x in loader:
            total += float(x.sum())
    print("OK", CASE, total, flush=True)


def init_dist():
    if mp.get_start_method(allow_none=True) != "spawn":
        mp.set_start_method("spawn", force=True)


if CASE == "unguarded":
    loader = data_factory.create_dataloader(2)
    total = 0.0
    for epoch in range(2):
        for x in loader:
            total += float(x.sum())
    print("OK", CASE, total, flush=True)
elif CASE == "unguarded_iter":
    iterator_train = iter(data_factory.create_dataloader(2))
    print("OK", CASE, float(next(iterator_train).sum()), flush=True)
elif CASE == "heavy":
    model = load_model()
    loader = data_factory.create_dataloader(2)
    for epoch in range(2):
        for x in loader:
            model(x)
    print("OK", CASE, flush=True)
elif CASE == "no_workers":
    ds = data_factory.TinyDataset()
    print("OK", CASE, float(sum(ds[i].sum() for i in range(4))), flush=True)
elif CASE == "built_not_iterated":
    loader = data_factory.create_dataloader(2)
    print("OK", CASE, "loader built, not iterated", flush=True)

if __name__ == "__main__":
    if CASE == "guarded":
        run()
    elif CASE == "start_method_in_fn":
        init_dist()
        run()
