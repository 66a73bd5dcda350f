# mimics SSL4MIS code/train_*.py: args parsed at module level, train() defines worker_init_fn locally,
# the loader (num_workers=4 in the repo, 2 here) is iterated in train(), which the main guard calls.
import random
import sys
import tempfile

from torch.utils.data import DataLoader

from dataset import BaseDataSets, RandomGenerator, make_data

CASE = sys.argv[1] if len(sys.argv) > 1 else "hazard"
SEED = 1337


def module_worker_init_fn(worker_id):
    random.seed(SEED + worker_id)


def train(base_dir):
    def worker_init_fn(worker_id):          # <- the hazard: local function
        random.seed(SEED + worker_id)

    db_train = BaseDataSets(base_dir, transform=RandomGenerator((4, 4)))
    db_val = BaseDataSets(base_dir)
    if CASE == "hazard":
        trainloader = DataLoader(db_train, batch_size=2, shuffle=True, num_workers=2, worker_init_fn=worker_init_fn)
    elif CASE == "safe_module_fn":
        trainloader = DataLoader(db_train, batch_size=2, shuffle=True, num_workers=2, worker_init_fn=module_worker_init_fn)
    elif CASE == "safe_val_loader":
        # the repo's valloader: num_workers=1, no worker_init_fn, dataset opens h5 lazily
        trainloader = DataLoader(db_val, batch_size=1, shuffle=False, num_workers=1)
    else:
        raise SystemExit("unknown case " + CASE)
    n = 0
    for batch in trainloader:
        n += batch["image"].shape[0]
    print("OK", CASE, "samples", n)


if __name__ == "__main__":
    d = tempfile.mkdtemp()
    make_data(d)
    train(d)
