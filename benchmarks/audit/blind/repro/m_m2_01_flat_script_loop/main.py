"""m_m2_01: flat training/eval script (DeepVO main.py, occupancy_flow train/generate/eval/encode,
dsacstar train_init/train_e2e/test, esac init_gating/train_esac).  Cases:
  unguarded_for   top-level `for` over a DataLoader(num_workers=2)          -> WSP101
  unguarded_with  top-level `with torch.no_grad(): for ...`                 -> WSP101
  unguarded_if    top-level `if ...: for batch in loader`                   -> WSP101
  import_load     guarded loop, but a module-level torch.load via pkg.ckpt  -> WSP103 (counts loads)
  guarded         everything under the main guard                          -> safe
  zero_workers    unguarded next(iter(DataLoader(num_workers=0)))           -> safe
  safe_parts      guarded; module-level loader/collate(with inner lambda)/worker_init_fn -> safe
  pool_partial    guarded multiprocessing.Pool.map(functools.partial(module_level_fn, args=Namespace)) -> safe
"""
import os
import sys
import torch
from torch.utils.data import DataLoader
from pkg import data, ckpt

case = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))


def make_loader(workers):
    return DataLoader(data.PairDataset(), batch_size=2, num_workers=workers,
                      collate_fn=data.collate_remove_none, worker_init_fn=data.worker_init_fn)


if case == "unguarded_for":
    loader = make_loader(2)
    for epoch in range(1):
        for b in loader:
            pass
    print("OK unguarded_for")

if case == "unguarded_with":
    loader = make_loader(2)
    with torch.no_grad():
        for b in loader:
            pass
    print("OK unguarded_with")

if case == "unguarded_if":
    if not os.path.exists(os.path.join(HERE, "no_such_latent.pkl")):
        loader = make_loader(2)
        for b in loader:
            pass
    print("OK unguarded_if")

if case == "zero_workers":
    vis_loader = make_loader(0)
    batch = next(iter(vis_loader))
    print("OK zero_workers", tuple(batch.shape))

if case == "import_load":
    state = ckpt.load_checkpoint(os.path.join(HERE, "model.pt"))


def process_path(path, args):
    return "%s:%d" % (path, args.size)


def main():
    loader = make_loader(2)
    n = 0
    for b in loader:
        n += b.shape[0]
    return n


if __name__ == "__main__":
    if case == "import_load":
        n = main()
        with open(ckpt.COUNTER) as f:
            loads = len(f.read().split())
        os.remove(ckpt.COUNTER)
        print("OK import_load: samples=%d torch.load ran %d times (1 = parent only)" % (n, loads))
    elif case == "pool_partial":
        import argparse
        from functools import partial
        from multiprocessing import Pool
        args = argparse.Namespace(size=3)
        with Pool(2) as p:
            out = p.map(partial(process_path, args=args), ["a", "b", "c"])
        print("OK pool_partial", out)
    elif case in ("guarded", "safe_parts"):
        print("OK", case, "samples=%d" % main())
