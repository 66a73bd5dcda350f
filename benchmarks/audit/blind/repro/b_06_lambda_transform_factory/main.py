"""b_06: main.py builds loaders with core.data_loader.get_train_loader and hands them to core.solver.Solver.

Cases (argv[1]): lambda_crop (hazard), target_lambda (hazard), named_fn (module-level function: safe twin)."""
import sys

from core.data_loader import get_train_loader
from core.solver import Solver


def main(kind):
    loaders = {"src": get_train_loader(kind, prob=0.5, num_workers=2)}
    Solver().train(loaders)


if __name__ == "__main__":
    main(sys.argv[1])
