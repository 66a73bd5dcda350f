"""Mimics nerf-from-image run.py / ScoreHMR train.py & eval scripts: the whole script runs at
module level.  Cases:
  hazard       top-level torch.load (resume) then top-level loaders.load_dataset(...) (cross-module start)
  inline_loop  top-level `for batch in DataLoader(num_workers=2)` (ScoreHMR eval / cache scripts)
  safe         the same statements under `if __name__ == "__main__":`"""
import os
import sys
import tempfile
import torch
from torch.utils.data import DataLoader, TensorDataset
from data import loaders

case = sys.argv[1] if len(sys.argv) > 1 else "hazard"
ckpt = os.path.join(tempfile.gettempdir(), "i_i1_03_ckpt.pt")
if not os.path.exists(ckpt):
    torch.save({"iteration": 20000, "w": torch.zeros(3)}, ckpt)


def body():
    resume_from = torch.load(ckpt, map_location="cpu")  # heavy work at import in the hazard case
    print("pid", os.getpid(), "loaded checkpoint", resume_from["iteration"], "as", __name__)
    if case == "inline_loop":
        for batch in DataLoader(TensorDataset(torch.zeros(4, 1)), batch_size=1, num_workers=2):
            pass
        print("OK inline loop")
    else:
        imgs = loaders.load_dataset({"resolution": 64})
        print("OK images", tuple(imgs.shape))


if case in ("hazard", "inline_loop"):
    body()  # unguarded
elif __name__ == "__main__":
    body()
