"""b_09: train.py (guarded) starts DataLoader(num_workers=2) over dataset.BERTDataset; dataset.py imports
config.py, which loads the tokenizer at import time, so every spawned worker loads it again.

Cases (argv[1]): heavy (import-time load: WSP103), lazy (the load happens in the parent's function call only:
safe twin). Count the LOADING lines."""
import os
import sys

os.environ["B09_CASE"] = sys.argv[1]  # read by config.py in the parent and (inherited) in the workers

import torch  # noqa: E402

import config  # noqa: E402,F401
import dataset  # noqa: E402


def run():
    train_dataset = dataset.BERTDataset(["a b c", "d e", "f g h", "a"] * 2)
    loader = torch.utils.data.DataLoader(train_dataset, batch_size=4, num_workers=2)
    print("sum", sum(b.sum().item() for b in loader))


if __name__ == "__main__":
    run()
