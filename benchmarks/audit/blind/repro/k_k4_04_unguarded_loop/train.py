# Mimics U-2-Net u2net_train.py, locating-objects-without-bboxes object-locator/train.py
# and locate.py, crowd-density-estimation train.py, monocular_depth_estimation train_nyu.py.
# cases:
#   loop         unguarded top-level loop over DataLoader(num_workers=1)        (hazard WSP101)
#   trainer      unguarded top-level Trainer(params).fit() from trainer.py      (hazard WSP101, 2 modules)
#   heavy        unguarded torch.load of a checkpoint, then an unguarded loop  (WSP103 + WSP101, locate.py)
#   heavy_guarded torch.load at import, loop guarded: each worker reloads     (WSP103 alone: repeated work)
#   guarded      the same loop under if __name__ == "__main__"                 (safe)
#   zero_workers unguarded loop, num_workers=0                                 (safe, train_nyu.py)
import os
import sys
import tempfile
import torch
import torch.utils.data

case = sys.argv[1]


class SalObjDataset(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.tensor([float(i)])


ckpt = os.path.join(tempfile.gettempdir(), "k_k4_04_ckpt.pt")
if case in ("heavy", "heavy_guarded"):
    if not os.path.exists(ckpt):
        torch.save({"w": torch.zeros(3)}, ckpt)
    checkpoint = torch.load(ckpt)
    print("LOADED CHECKPOINT in", __name__, os.getpid(), flush=True)

workers = 0 if case == "zero_workers" else 1
loader = torch.utils.data.DataLoader(SalObjDataset(), batch_size=2, shuffle=True,
                                     num_workers=workers)

if case in ("loop", "heavy", "zero_workers"):
    for epoch in range(1):
        for i, data in enumerate(loader):
            pass
    print("OK loop", flush=True)
elif case == "trainer":
    from trainer import Trainer
    trainer = Trainer({"train_dl": loader})
    history = trainer.fit()
    print("OK trainer", history, flush=True)

if __name__ == "__main__" and case in ("guarded", "heavy_guarded"):
    for epoch in range(1):
        for i, data in enumerate(loader):
            pass
    print("OK guarded", flush=True)
