# Mimics TransUNet trainer.py: trainer_synapse() defines worker_init_fn inside itself and passes it to
# DataLoader(num_workers=8 -> 2 here).
import random
from torch.utils.data import DataLoader
from datasets.dataset_synapse import Synapse_dataset


def module_worker_init_fn(worker_id):
    random.seed(1234 + worker_id)


def trainer_synapse(args, case):
    db_train = Synapse_dataset(base_dir=args["root"], list_dir=args["root"], split="train")

    def worker_init_fn(worker_id):
        random.seed(args["seed"] + worker_id)

    init = worker_init_fn if case == "local_init" else module_worker_init_fn
    trainloader = DataLoader(db_train, batch_size=2, shuffle=True, num_workers=2, worker_init_fn=init)
    return sum(int(b.sum()) for b in trainloader)


def inference(args):
    db_test = Synapse_dataset(base_dir=args["root"], list_dir=args["root"], split="test_vol")
    testloader = DataLoader(db_test, batch_size=1, shuffle=False, num_workers=1)
    return sum(int(b.sum()) for b in testloader)
