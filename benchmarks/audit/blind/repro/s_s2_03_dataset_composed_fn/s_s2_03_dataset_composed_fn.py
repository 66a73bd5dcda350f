"""Shape (diffuser): SequenceDataset keeps preprocess_fn = compose(...) (a local function from another module);
Trainer wraps it in DataLoader(num_workers=1) and the script iterates it at module level (no main guard).
Cases: hazard_local_fn (guarded script, local function on the dataset), unguarded (picklable fn, loop at module
level), safe_workers0 (local function, but only the num_workers=0 loader is iterated), safe (picklable, guarded)."""
import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pkg.sequence import SequenceDataset
from pkg.training import Trainer

CASE = sys.argv[1]


def run(picklable, workers=1):
    ds = SequenceDataset(picklable=picklable)
    tr = Trainer(ds, num_workers=workers)
    if workers == 0:
        print(next(tr.dataloader_vis).shape)
    else:
        for i in range(2):
            print("epoch", i, tr.train(2))
    print("OK", CASE)


if CASE == "unguarded":
    run(picklable=True)          # module-level loop: re-run in every spawned worker

if __name__ == "__main__":
    if CASE == "hazard_local_fn":
        run(picklable=False)
    elif CASE == "safe_workers0":
        run(picklable=False, workers=0)
    elif CASE == "safe":
        run(picklable=True)
