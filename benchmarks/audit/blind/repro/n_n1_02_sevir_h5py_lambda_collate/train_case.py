"""Mimics earthformer scripts/cuboid_transformer/sevir/train_cuboid_sevir.py (guarded) ->
SEVIRLightningDataModule.train_dataloader -> SEVIRTorchDataset.get_torch_dataloader(num_workers=...).
cases: hazard (h5py in __init__ + lambda collate: as the repository), h5py_only (module-level collate),
lambda_only (lazy h5py open), catalog_lambda_only (lambda kept on the SEVIRDataLoader attribute catalog_filter, as sevir_dataloader.py:221), safe (lazy open + module-level collate), zero_workers (as repository, 0 workers)."""
import os
import sys
import tempfile
import h5py
import numpy as np
from sevir_torch_wrap import SEVIRTorchDataset


def main(case):
    d = tempfile.mkdtemp()
    path = os.path.join(d, "sevir.h5")
    with h5py.File(path, "w") as f:
        f["vil"] = np.random.rand(6, 4, 4).astype("float32")
    open_in_init = case in ("hazard", "h5py_only", "zero_workers")
    use_lambda = case in ("hazard", "lambda_only", "zero_workers")
    workers = 0 if case == "zero_workers" else 2
    cat = "default" if case in ("hazard", "catalog_lambda_only", "zero_workers") else None
    ds = SEVIRTorchDataset(path, open_in_init=open_in_init, catalog_filter=cat)
    loader = ds.get_torch_dataloader(num_workers=workers, use_lambda=use_lambda)
    n = sum(1 for _ in loader)
    print("batches", n)


if __name__ == "__main__":
    main(sys.argv[1])
