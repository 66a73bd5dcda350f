"""Like crystalformer/src/utils.py: GLXYZAW_from_file opens multiprocessing.Pool(num_workers) and maps a
module-level function (through functools.partial) over the rows of a CSV."""
import multiprocessing
from functools import partial


def process_one(cif, n_max):
    return len(cif) % n_max


def from_file(rows, n_max, num_workers=1):
    p = multiprocessing.Pool(num_workers)
    out = p.map_async(partial(process_one, n_max=n_max), rows).get()
    p.close()
    p.join()
    return out
