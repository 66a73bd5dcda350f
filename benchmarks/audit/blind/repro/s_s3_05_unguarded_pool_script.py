"""Mimics learnable-triangulation-pytorch mvn/datasets/human36m_preprocessing/undistort-h36m.py:112
(pool = multiprocessing.Pool(n) then imap_unordered at module level, no main guard) and
collect-bboxes.py:82 (Pool + apply_async with a callback at module level; `nesteddict = lambda:
defaultdict(nesteddict)` (line 26) is only used by the callback in the parent).
Cases: unguarded_imap, unguarded_apply_async, safe_guarded (same code under the main guard)."""
import multiprocessing
import sys
from collections import defaultdict

import numpy as np

case = sys.argv[1]
number_of_processes = 2
# module-level dataset work repeated by each spawned child (labels, meshgrids)
labels = {"subject_names": ["S1", "S5"], "frames": np.arange(20)}

nesteddict = lambda: defaultdict(nesteddict)
bboxes_retval = nesteddict()


def undistort_and_save(idx):
    return int(labels["frames"][idx]) * 2


def load_bboxes(subject, camera):
    return np.zeros((3, 4), dtype=np.int32), subject, camera


def add_result_to_retval(args):
    bboxes, subject, camera = args
    bboxes_retval[subject][camera] = bboxes


def run_imap():
    pool = multiprocessing.Pool(number_of_processes)
    out = list(pool.imap_unordered(undistort_and_save, range(len(labels["frames"])), chunksize=5))
    pool.close()
    pool.join()
    return len(out)


def run_apply_async():
    pool = multiprocessing.Pool(number_of_processes)
    res = [pool.apply_async(load_bboxes, args=(s, c), callback=add_result_to_retval)
           for s in labels["subject_names"] for c in ("54138969", "55011271")]
    for r in res:
        r.get(timeout=30)
    pool.close()
    pool.join()
    return sum(len(v) for v in bboxes_retval.values())


if case == "unguarded_imap":
    print("OK unguarded_imap", run_imap())
elif case == "unguarded_apply_async":
    print("OK unguarded_apply_async", run_apply_async())

if __name__ == "__main__" and case == "safe_guarded":
    print("OK safe_guarded", run_imap(), run_apply_async())
