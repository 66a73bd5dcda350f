"""b_04: a lambda worker_init_fn built in lib/data.py (only when --manualseed is given), the loaders handed to a
model class in lib/model.py that iterates them; workers default to 2 here (8 in the original).

Cases (argv[1]): seed (--manualseed 0: hazard), noseed (default -1: worker_init_fn=None, safe)."""
import argparse
import sys

from lib.data import load_data
from lib.model import Model


def train(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--manualseed", type=int, default=-1)
    opt = parser.parse_args(argv)
    dataloader = load_data(opt)
    Model(opt, dataloader).train()


if __name__ == "__main__":
    train(["--manualseed", "0"] if sys.argv[1] == "seed" else [])
