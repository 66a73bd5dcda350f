# mimics DDNM guided_diffusion/diffusion.py: a method defines seed_worker locally and passes it as
# worker_init_fn to DataLoader(num_workers=config.data.num_workers, 32 in configs/*.yml); also the
# look-alikes: lambdas A/Ap used only in the parent; SPSR preprocess Pool with a local callback.
# cases: local_worker_init (hazard) | parent_lambda (safe) | module_partial_transform (safe) |
#        pool_local_callback (safe)
import sys, random
from functools import partial
from multiprocessing import Pool
import numpy as np
import torch
from torch.utils import data


def center_crop(x, size):
    return x[..., :size, :size]


class Images(data.Dataset):
    def __init__(self, transform=None):
        self.transform = transform

    def __len__(self):
        return 4

    def __getitem__(self, i):
        x = torch.full((3, 8, 8), float(i))
        return self.transform(x) if self.transform else x


def work(path):
    return "Processing " + path


class Diffusion:
    def __init__(self, seed=0, num_workers=2):
        self.seed = seed
        self.num_workers = num_workers

    def sample_local_worker_init(self):
        def seed_worker(worker_id):
            np.random.seed(self.seed % 2 ** 32)
            random.seed(self.seed)
        loader = data.DataLoader(Images(), batch_size=2, shuffle=True,
                                 num_workers=self.num_workers, worker_init_fn=seed_worker)
        return sum(1 for _ in loader)

    def sample_parent_lambda(self):
        A = lambda z: z.mean(0, keepdim=True)
        loader = data.DataLoader(Images(), batch_size=2, num_workers=self.num_workers)
        return sum(A(x).numel() > 0 for x in loader)

    def sample_module_partial(self):
        loader = data.DataLoader(Images(partial(center_crop, size=4)), batch_size=2,
                                 num_workers=self.num_workers)
        return sum(1 for _ in loader)


def pool_local_callback():
    done = []

    def update(arg):
        done.append(arg)
    pool = Pool(2)
    for p in ["a", "b", "c"]:
        pool.apply_async(work, args=(p,), callback=update)
    pool.close()
    pool.join()
    return len(done)


def main(case):
    d = Diffusion()
    n = {"local_worker_init": d.sample_local_worker_init, "parent_lambda": d.sample_parent_lambda,
         "module_partial_transform": d.sample_module_partial,
         "pool_local_callback": pool_local_callback}[case]()
    print("OK", n)


if __name__ == "__main__":
    main(sys.argv[1])
