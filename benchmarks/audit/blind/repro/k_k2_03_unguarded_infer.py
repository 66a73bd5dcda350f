"""MotionBERT shape (infer_wild.py / infer_wild_mesh.py; poselstm train.py / test.py too): a script
with no main guard loads a checkpoint with torch.load at top level, then iterates a
DataLoader(num_workers=8) at top level.  Each spawned worker re-imports the script as __mp_main__,
repeats the torch.load and reaches the loop again.
cases: unguarded (as the repository), guarded (the same code under if __name__ == '__main__')."""
import os, sys, tempfile
import torch
from torch.utils.data import DataLoader, Dataset

CASE = sys.argv[1]


class WildDetDataset(Dataset):
    def __init__(self, n):
        self.vid_all = torch.arange(float(n))
    def __len__(self):
        return len(self.vid_all)
    def __getitem__(self, i):
        return self.vid_all[i]


def run():
    ck = os.path.join(tempfile.gettempdir(), "k_k2_03_ckpt.bin")
    if not os.path.exists(ck):
        torch.save({"model_pos": {"w": torch.zeros(3)}}, ck)
    print("torch.load in pid", os.getpid(), "as", __name__, flush=True)
    checkpoint = torch.load(ck, map_location=lambda storage, loc: storage)
    test_loader = DataLoader(WildDetDataset(6), batch_size=1, num_workers=2)
    out = []
    with torch.no_grad():
        for batch_input in test_loader:
            out.append(batch_input.item())
    print("OK", CASE, out, flush=True)


if CASE == "unguarded":
    run()                       # top-level statements, as in the repository
elif CASE == "guarded" and __name__ == "__main__":
    run()
