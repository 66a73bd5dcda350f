"""d_d2_02: heavy work at import time repeated in each spawned DataLoader worker.
cases:
  module_config     guarded script; project module config.py loads the tokenizer at import; dataset.py imports it
                    (BERT-CRF config.py:11)                                   -> WSP103 hazard (1 + num_workers loads)
  script_level      guarded call, but the script itself loads a checkpoint at module level
                    (IIR test.py:36, Siam eval.py:19)    -> WSP103 hazard (1 + num_workers loads)
  under_guard       the load happens under the main guard, value handed to the dataset -> safe (1 load)
"""
import os
import sys

import torch.utils.data as tud

import heavy

case = sys.argv[1]
if os.environ.get("D2_HEAVY_PARENT") is None:
    os.environ["D2_HEAVY_PARENT"] = str(os.getpid())
    if os.path.exists(heavy.LOG):
        os.remove(heavy.LOG)

if case == "script_level":
    CHECKPOINT = heavy.load("script-level checkpoint")


def run(ds):
    loader = tud.DataLoader(ds, batch_size=2, num_workers=2)
    total = sum(float(b.sum()) for b in loader)
    loads = open(heavy.LOG).read().splitlines()
    print(f"OK total {total}; loads={len(loads)}: {loads}", flush=True)


if __name__ == "__main__":
    if case == "module_config":
        import dataset
        run(dataset.EntityDataset())
    elif case == "script_level":
        import dataset_lazy
        run(dataset_lazy.EntityDataset(tokenizer=CHECKPOINT))
    elif case == "under_guard":
        import dataset_lazy
        tok = heavy.load("tokenizer under guard")
        run(dataset_lazy.EntityDataset(tokenizer=tok))
