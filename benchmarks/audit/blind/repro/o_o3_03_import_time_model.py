# Mimics YOWO video_mAP.py: model built + checkpoint torch.load at module level, loader started under the guard.
import os, sys, tempfile
import torch
from torch.utils.data import Dataset, DataLoader

CASE = sys.argv[1] if len(sys.argv) > 1 else "hazard"
CKPT = os.path.join(tempfile.gettempdir(), "o_o3_03_ckpt.pt")
if not os.path.exists(CKPT):
    torch.save({"state_dict": torch.nn.Linear(4, 2).state_dict()}, CKPT)

def build_and_load():
    m = torch.nn.Linear(4, 2)
    ckpt = torch.load(CKPT)   # video_mAP.py:58
    m.load_state_dict(ckpt["state_dict"])
    print("LOADED model in", __name__, os.getpid(), flush=True)
    return m

if CASE == "hazard":
    model = build_and_load()   # video_mAP.py:45-58 at import

class TestData(Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        return torch.zeros(4)

def video_map():
    loader = DataLoader(TestData(), batch_size=2, num_workers=2)
    for x in loader:
        model(x)
    print("OK iterated", CASE)

if __name__ == "__main__":
    if CASE == "safe":
        model = build_and_load()
    video_map()
