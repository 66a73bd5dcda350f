import os
import time
from concurrent.futures import ProcessPoolExecutor
from functools import partial


def run_tiling(out):
    # stands for the slide tiling (heavy work); records each call so repeats show
    with open(out, "a") as f:
        f.write(f"tiling in pid {os.getpid()}\n")
    time.sleep(0.2)


def compute_masks(thres, tile):
    return tile, tile * thres


def exec_multiprocess(fn, iterable, *fn_params):
    function = partial(fn, *fn_params)          # partial of a module-level function: picklable
    with ProcessPoolExecutor(max_workers=2) as executor:
        return list(executor.map(function, iterable))


def calculate_filters(n):
    return exec_multiprocess(compute_masks, range(n), 3)
