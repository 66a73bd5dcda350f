"""c3 shape 03 (two modules): main.py builds a datamodule from data.py whose DataLoader subclass sets a
lambda collate_fn in __init__ (WSP201, pigvae data.py L187; --num_workers default 32 there, 2 here).

usage: python main.py CASE
cases: subclass_lambda (hazard); named_collate (safe: partial of a module-level function; the dataset keeps
       module-level functions in a dict attribute, like pigvae's GraphGenerator)
"""
import sys

from data import GraphDataModule, NamedCollateDataLoader, DenseGraphDataLoader


def main(case):
    loader_cls = {"subclass_lambda": DenseGraphDataLoader, "named_collate": NamedCollateDataLoader}[case]
    dm = GraphDataModule(num_workers=2, loader_cls=loader_cls)
    n = sum(1 for _ in dm.train_dataloader())
    print(f"[{case}] {n} batches")
    print("RESULT: OK")


if __name__ == "__main__":
    main(sys.argv[1])
