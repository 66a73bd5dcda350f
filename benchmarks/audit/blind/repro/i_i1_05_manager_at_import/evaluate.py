"""Mimics tf2-mobile-2d-single-pose-estimation evaluate.py:113: multiprocessing.Manager()
created at module level (starts a server process at import), Pool(...).map of a module-level
function called from train.py's guarded main.  LAZY=1: manager created inside the function."""
import os
import multiprocessing
from functools import reduce

num_processes = 2
if os.environ.get("LAZY") != "1":
    manager = multiprocessing.Manager()          # hazard: process start at import
    shared_count_list = manager.list([0])


def calculate_total_pckh_multiprocess(args):   # module-level Pool target (safe)
    return [x * 2 for x in args]


def calculate_total_pckh(chunks):
    if os.environ.get("LAZY") == "1":
        m = multiprocessing.Manager()
        m.list([0])
    chunks = list(map(lambda c: c, chunks))    # parent-only lambda
    with multiprocessing.Pool(processes=num_processes) as pool:
        scores = pool.map(calculate_total_pckh_multiprocess, chunks)
    return sum(reduce(lambda x, y: x + y, scores))
