# mimics Medical-SAM-Adapter function.py: module-level setup (args parsing, `torch.ones([1]).cuda()`, GradScaler,
# metrics) runs whenever the module is imported -- in the parent and again in every spawned worker,
# because train.py (re-imported as __mp_main__) imports it at top level.
import os
import sys
import time

CASE = sys.argv[1] if len(sys.argv) > 1 else "hazard"
if CASE == "hazard":
    print("IMPORT-TIME-GPU-SETUP pid=%d" % os.getpid(), flush=True)   # stands for .cuda() context creation
    time.sleep(0.3)


def setup():
    print("GPU-SETUP-IN-MAIN pid=%d" % os.getpid(), flush=True)


def validation(loader):
    return sum(int(b.shape[0]) for b in loader)
