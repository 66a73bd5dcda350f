"""cases: lambda_collate (hazard, WSP201, 3 modules), partial_collate (safe), no_workers (safe)."""
import argparse
import sys

from exp_classification import Exp_Classification

if __name__ == "__main__":
    case = sys.argv[1]
    args = argparse.Namespace(seq_len=4, num_workers=0 if case == "no_workers" else 2,
                              style="partial" if case == "partial_collate" else "lambda")
    Exp_Classification(args).train()
