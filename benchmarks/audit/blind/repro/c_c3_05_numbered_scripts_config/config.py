"""deepslide code/config.py in miniature: parses argv and computes dataset statistics AT IMPORT TIME
(config.py L368 `path_mean, path_std = compute_stats(...)`), which iterates a DataLoader(num_workers=1)."""
import argparse
import sys

from compute_stats import compute_stats, compute_stats_module_class

parser = argparse.ArgumentParser()
parser.add_argument("case")
parser.add_argument("--num_workers", type=int, default=2)  # deepslide default 8
args = parser.parse_args()

if args.case == "local_class":
    path_mean, path_std = compute_stats(n=8)
elif args.case == "config_import_workers":
    path_mean, path_std = compute_stats_module_class(n=8)
else:  # statistics precomputed (e.g. loaded from a json): no workers at import
    path_mean, path_std = [0.5] * 3, [0.25] * 3
