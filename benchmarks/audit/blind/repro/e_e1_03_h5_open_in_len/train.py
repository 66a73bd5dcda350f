import os
import sys
import tempfile

import h5py
import numpy as np
import torch

import bratsDataset
import segmenter


def main(case):
    path = os.path.join(tempfile.mkdtemp(), "brats.h5")
    with h5py.File(path, "w") as f:
        f["images_train"] = np.arange(16, dtype=np.float32).reshape(8, 2)
    if case == "len_opens":
        ds, shuffle = bratsDataset.BratsDataset(path, True), True
    elif case == "len_cached":
        ds, shuffle = bratsDataset.BratsDataset(path, False), True
    elif case == "no_shuffle":
        ds, shuffle = bratsDataset.BratsDataset(path, True), False
    else:
        raise SystemExit("case: len_opens | len_cached | no_shuffle")
    loader = torch.utils.data.DataLoader(ds, batch_size=2, shuffle=shuffle, num_workers=1)
    segmenter.Segmenter(loader).train()
    print("OK", case)


if __name__ == "__main__":
    main(sys.argv[1])
