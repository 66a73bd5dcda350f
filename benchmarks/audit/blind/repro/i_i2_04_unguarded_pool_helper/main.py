"""Like CrystalFormer main.py: argparse, then at the top level (no main guard)
`train_data = GLXYZAW_from_file(..., args.num_io_process)` (default 40, capped at cpu_count) which starts a
Pool in another module.  Cases: hazard (top-level call, as in the repository), guarded (safe twin:
the same call under `if __name__ == "__main__":`, as scripts/compute_metrics.py and awl2struct.py do)."""
import sys
import multiprocessing
from utils import from_file

CASE = sys.argv[1]
num_io_process = min(4, multiprocessing.cpu_count())
rows = ["a" * i for i in range(20)]

if CASE == "hazard":
    train_data = from_file(rows, 5, num_io_process)
    print("OK", CASE, sum(train_data))

if __name__ == "__main__" and CASE == "guarded":
    train_data = from_file(rows, 5, num_io_process)
    print("OK", CASE, sum(train_data))
