import random
from torch.utils.data import DataLoader
from datasets import Synapse_dataset, RandomGenerator


def global_worker_init_fn(worker_id):
    random.seed(1234 + worker_id)


def trainer_synapse(args, case):
    db_train = Synapse_dataset(args["root"], "train", transform=RandomGenerator(4))

    def worker_init_fn(worker_id):
        random.seed(args["seed"] + worker_id)

    if case == "hazard_local_init":
        init = worker_init_fn
    else:
        init = global_worker_init_fn
    if case == "safe_h5_lazy_test":
        db = Synapse_dataset(args["root"], "test_vol")
        loader = DataLoader(db, batch_size=1, shuffle=False, num_workers=1)
    else:
        loader = DataLoader(db_train, batch_size=4, shuffle=True, num_workers=2, worker_init_fn=init)
    n = 0
    for batch in loader:
        n += 1
    return n
