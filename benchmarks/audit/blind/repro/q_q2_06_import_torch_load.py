"""q2 shape 06: a checkpoint torch.load at module level (outlier-exposure CIFAR/test.py:84, default --load
./snapshots) in a script whose loaders have workers: every spawned worker re-imports the script and reloads it.
(In the repository the script is also unguarded (row CIFAR/test.py:150); here the loop is guarded to show the
repeated load on its own.)
cases: hazard (module-level load), safe (load under the guard). Prints how many times the checkpoint was loaded."""
import os
import sys
import tempfile
import torch
from torch.utils.data import TensorDataset, DataLoader

CKPT = os.path.join(tempfile.gettempdir(), "q_q2_06.pt")
LOG = os.path.join(tempfile.gettempdir(), "q_q2_06_loads.log")
case = sys.argv[1] if len(sys.argv) > 1 else "hazard"


def load():
    with open(LOG, "a") as f:
        f.write("load %d\n" % os.getpid())
    return torch.load(CKPT)


if not os.path.exists(CKPT):
    torch.save({"w": torch.randn(4, 4)}, CKPT)

net = torch.nn.Linear(4, 4, bias=False)
if case == "hazard":
    net.load_state_dict({"weight": load()["w"]})

if __name__ == "__main__":
    if case == "safe":
        net.load_state_dict({"weight": load()["w"]})
    loader = DataLoader(TensorDataset(torch.randn(32, 4)), batch_size=8, num_workers=2)
    n = sum(1 for _ in loader)
    with open(LOG) as f:
        loads = len(f.readlines())
    os.remove(LOG)
    print("OK batches", n, "checkpoint loads", loads)
