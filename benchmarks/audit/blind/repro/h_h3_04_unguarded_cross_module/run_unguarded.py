"""Mimics LTSF-Linear run_longExp.py / VGCN-BERT train script: args parsed and `if args.is_training:` block
that trains at module level, no main guard (WSP101). Case arg: unguarded."""
import argparse
from exp.exp_main import Exp_Main

parser = argparse.ArgumentParser()
parser.add_argument("case")
parser.add_argument("--is_training", type=int, default=1)
parser.add_argument("--num_workers", type=int, default=2)
args = parser.parse_args()

Exp = Exp_Main
if args.is_training:
    exp = Exp(args)
    exp.train("setting")
