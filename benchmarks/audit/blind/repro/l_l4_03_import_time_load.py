"""Shape: heavy work at import time in the main script (torch.load of a
teacher/pretrained checkpoint via a helper module, dataset build), with the
DataLoader itself iterated under the guard. Each spawned worker re-imports the
main module as __mp_main__ and repeats the load. Counts loads via a log file.
Cases: hazard (load at top level), safe (load inside main())."""
import os
import sys
import tempfile
import torch
from torch.utils.data import DataLoader, TensorDataset

CASE = sys.argv[1] if len(sys.argv) > 1 else "hazard"
TMP = os.path.join(tempfile.gettempdir(), "l_l4_03")
os.makedirs(TMP, exist_ok=True)
CKPT = os.path.join(TMP, "teacher.pt")
LOG = os.path.join(TMP, "loads.log")
if not os.path.exists(CKPT):
    torch.save({"model": torch.nn.Linear(3, 1).state_dict()}, CKPT)


def load_paper_settings():
    with open(LOG, "a") as f:
        f.write(f"{os.getpid()} {__name__}\n")
    t = torch.nn.Linear(3, 1)
    t.load_state_dict(torch.load(CKPT)["model"])
    return t


if CASE == "hazard":
    t_net = load_paper_settings()


def main():
    global t_net
    if CASE == "safe":
        open(LOG, "w").close()
        t_net = load_paper_settings()
    loader = DataLoader(TensorDataset(torch.randn(16, 3)), batch_size=4, num_workers=2)
    for (xb,) in loader:
        t_net(xb)
    with open(LOG) as f:
        lines = f.read().splitlines()
    print("loads:", len(lines), lines)
    print("REPEATED" if len(lines) > 1 else "ONCE")


if __name__ == "__main__":
    if CASE == "hazard":
        # reset: keep only this parent's record
        with open(LOG, "w") as f:
            f.write(f"{os.getpid()} {__name__}\n")
    main()
