# mimics PaSST ex_esc50.py: loaders built from the dataset module, 16 workers (2 here), sacred automain
import sys
from torch.utils.data import DataLoader
from audiodatasets import worker_init_fn
import esc50_dataset

CASE = sys.argv[1] if len(sys.argv) > 1 else "hazard"


def automain(fn):
    # sacred's Experiment.automain: runs only when the function's module is "__main__"
    if fn.__module__ == "__main__":
        fn()
    return fn


@automain
def default_command():
    if CASE == "hazard":
        ds = esc50_dataset.get_training_set(roll=True)
    elif CASE == "safe_partial":
        ds = esc50_dataset.get_training_set(roll=True, safe=True)
    elif CASE == "safe_automain":
        ds = esc50_dataset.get_training_set(roll=False)
    else:
        raise SystemExit("unknown case")
    dl = DataLoader(ds, batch_size=4, num_workers=2, worker_init_fn=worker_init_fn)
    for b in dl:
        pass
    print("OK", CASE)
