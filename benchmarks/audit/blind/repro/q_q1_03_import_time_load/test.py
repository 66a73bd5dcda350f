"""Shape: an evaluation script (University1652-Baseline test.py/test_160k.py) loads the trained network
(utils.load_network -> torch.load) at module level, then starts 16 (here 2) DataLoader workers under the main
guard: every spawned worker re-imports the script as __mp_main__ and loads the checkpoint again.
Cases: hazard (load at import), safe (load under the guard). Prints one line per load."""
import os
import sys
import torch
from torch.utils.data import DataLoader, TensorDataset
from utils import load_network

CKPT = "/tmp/q_q1_03_net.pth"
if not os.path.exists(CKPT):
    torch.save(torch.nn.Linear(4, 2).state_dict(), CKPT)
case = sys.argv[1] if len(sys.argv) > 1 else "hazard"
loader = DataLoader(TensorDataset(torch.randn(8, 4)), batch_size=2, num_workers=2)
if case == "hazard":
    model = load_network(CKPT)

if __name__ == "__main__":
    if case == "safe":
        model = load_network(CKPT)
    with torch.no_grad():
        feats = torch.cat([model(x) for (x,) in loader])
    print("features", tuple(feats.shape))
