"""Safe twin of run_unguarded.py: the same code under a main guard. Case arg: guarded."""
import argparse
from exp.exp_main import Exp_Main

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("case")
    parser.add_argument("--is_training", type=int, default=1)
    parser.add_argument("--num_workers", type=int, default=2)
    args = parser.parse_args()
    if args.is_training:
        Exp_Main(args).train("setting")
