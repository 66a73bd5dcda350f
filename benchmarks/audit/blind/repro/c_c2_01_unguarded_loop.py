"""c_c2_01: training/test scripts with no main guard (BPR-pytorch main.py, MPRNet */train.py and
Deblurring/test.py).  Under spawn each DataLoader worker re-imports the script as __mp_main__.

Cases:
  hazard        module-level `for epoch` loop iterating DataLoader(num_workers=2)           (WSP101)
  with_block    the loop sits inside a module-level `with torch.no_grad():` (MPRNet test.py) (WSP101)
  heavy_import  torch.load of a checkpoint at module level, loader iterated under the guard:
                every worker repeats the load (LOADING marker printed once per process)   (WSP103)
  zero_workers  module-level loop over a DataLoader(num_workers=0) (BPR evaluate.metrics): safe
  guarded       the same loop under `if __name__ == "__main__":`: safe
"""
import os
import sys
import tempfile

import torch
from torch.utils.data import DataLoader, Dataset

CASE = sys.argv[1]


class Pairs(Dataset):                      # data_utils.BPRData stand-in (module level: picklable)
    def __init__(self, n):
        self.features = list(range(n))

    def __len__(self):
        return len(self.features)

    def __getitem__(self, i):
        return self.features[i]


if CASE == "heavy_import":
    ckpt = os.path.join(tempfile.gettempdir(), "c_c2_01_ckpt.pth")
    if not os.path.exists(ckpt):
        torch.save({"state_dict": torch.zeros(4)}, ckpt)
    print("LOADING", os.getpid(), flush=True)
    state = torch.load(ckpt)              # utils.load_checkpoint(model, args.weights)

train_loader = DataLoader(Pairs(8), batch_size=4, shuffle=True,
                          num_workers=0 if CASE == "zero_workers" else 2)


def run():
    total = 0
    for epoch in range(2):
        for batch in train_loader:
            total += int(batch.sum())
    print("total", total)


if CASE in ("hazard", "zero_workers"):
    total = 0
    for epoch in range(2):                 # module-level epoch loop
        for batch in train_loader:
            total += int(batch.sum())
    print("total", total)
elif CASE == "with_block":
    with torch.no_grad():
        for ii, batch in enumerate(train_loader, 0):
            pass
    print("done")
elif CASE in ("guarded", "heavy_import"):
    if __name__ == "__main__":
        run()
else:
    raise SystemExit("unknown case " + CASE)
