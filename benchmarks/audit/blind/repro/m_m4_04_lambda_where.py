"""m4 shape 04 (safe look-alikes): lambdas that never cross to a worker
(dlwpt-code p2ch11/dsets.py sort key, DRL Hands-On Chapter11/01_a3c_data.py PolicyAgent lambda built inside
the worker; pytorch-book Chapter9 guarded fire entry point with a module-level Dataset).

Cases:
  sort_lambda_parent  lambda used as sort key in Dataset.__init__ (parent only); 2 DataLoader workers (safe)
  lambda_in_worker    module-level Process target builds its lambda inside the child (safe)
  lambda_to_worker    twin: the lambda is passed to the Process as an argument (WSP201, for contrast)
  guarded_entry       module-level Dataset + loaders built inside a function called under the guard (safe)
"""
import sys
import torch
import torch.multiprocessing as mp
from torch.utils.data import Dataset, DataLoader

CASE = sys.argv[1] if len(sys.argv) > 1 else "sort_lambda_parent"


class LunaLike(Dataset):
    def __init__(self):
        items = [(i % 3, float(i)) for i in range(30)]
        items.sort(key=lambda x: (x[0], x[1]))
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return torch.tensor(self.items[i][1]), self.items[i][0]


def data_func(net, q):
    agent = lambda x: net(x)[0]          # built in the worker, never pickled
    q.put(float(agent(torch.ones(1, 2)).sum()))


def data_func_with(fn, q):
    q.put(float(fn(torch.ones(1, 2)).sum()))


def train(num_workers=2):
    dl = DataLoader(LunaLike(), batch_size=5, shuffle=True, num_workers=num_workers)
    return sum(len(y) for x, y in dl)


if __name__ == "__main__":
    if CASE in ("sort_lambda_parent", "guarded_entry"):
        print("OK", train(), flush=True)
    else:
        net = torch.nn.Linear(2, 3)
        q = mp.Queue()
        if CASE == "lambda_in_worker":
            p = mp.Process(target=data_func, args=(net, q))
        else:
            p = mp.Process(target=data_func_with, args=(lambda x: net(x), q))
        p.start()
        print("OK", q.get(timeout=30), flush=True)
        p.join()
