import functools
import random


def seed_everything(seed=1234):
    """Copy of tutorial_pytorch_japanese */py/utils.py: returns a function defined inside."""
    random.seed(seed)

    def worker_init_fn(worker_id):
        random.seed(worker_id + seed)
    return worker_init_fn


def _worker_init(worker_id, seed):
    random.seed(worker_id + seed)


def seed_everything_safe(seed=1234):
    random.seed(seed)
    return functools.partial(_worker_init, seed=seed)
