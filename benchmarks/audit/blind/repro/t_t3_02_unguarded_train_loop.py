# mimics TimeSiam/run.py and Time-LLM/run_main.py: argparse + a top-level loop that builds
# DataLoaders (num_workers>0) and iterates them, with no `if __name__ == "__main__":` guard.
# cases: hazard (unguarded top-level loop), safe (same loop under the main guard)
import argparse
import sys
import torch
from torch.utils.data import DataLoader, TensorDataset


def data_provider(args):
    ds = TensorDataset(torch.arange(16.0).view(8, 2))
    return ds, DataLoader(ds, batch_size=4, num_workers=args.num_workers)


def run():
    parser = argparse.ArgumentParser()
    parser.add_argument("case")
    parser.add_argument("--num_workers", type=int, default=2)
    parser.add_argument("--itr", type=int, default=1)
    return parser.parse_args()


def train_all(args):
    for ii in range(args.itr):
        _, loader = data_provider(args)
        print("batches", sum(1 for _ in loader))


case = sys.argv[1] if len(sys.argv) > 1 else "hazard"
if case == "hazard":
    args = run()
    for ii in range(args.itr):  # top-level loop, as in the repositories
        _, train_loader = data_provider(args)
        print("batches", sum(1 for _ in train_loader))
elif __name__ == "__main__":
    train_all(run())
