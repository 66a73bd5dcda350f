"""Mimics run_longExp.py / main.py of the LTSF family: argparse at top level, then
`if args.is_training: for ii in range(args.itr): exp.train(...)` at top level (no main guard).
cases: unguarded (num_workers default 10 -> 2 here), guarded (same under if __name__ == '__main__'),
unguarded_zero (unguarded, num_workers 0 as in Informer2020/Crossformer defaults)."""
import sys
import argparse
from exp_main import Exp_Main

case = sys.argv[1] if len(sys.argv) > 1 else "unguarded"
parser = argparse.ArgumentParser()
parser.add_argument("case")
parser.add_argument("--num_workers", type=int, default=0 if case == "unguarded_zero" else 2)
parser.add_argument("--is_training", type=int, default=1)
parser.add_argument("--itr", type=int, default=1)
args = parser.parse_args()


def main():
    for ii in range(args.itr):
        Exp_Main(args).train("s%d" % ii)


if case in ("unguarded", "unguarded_zero"):
    if args.is_training:
        for ii in range(args.itr):
            Exp_Main(args).train("s%d" % ii)
elif case == "guarded":
    if __name__ == "__main__":
        main()
