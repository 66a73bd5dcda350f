"""Mimics DDN sr_test.py. Cases:
  local_def     guarded script, loader from CVDB (local transform)      -> spawn: pickling error
  module_def    guarded script, loader from CVDB_safe (module-level fn)  -> ok
  unguarded     module-level loop over CVDB_safe loader, no main guard   -> spawn: bootstrapping RuntimeError
  parent_lambda lambdas Pr/Pn used only in the parent                    -> ok
"""
import sys
from data import CVDB, CVDB_safe

case = sys.argv[1] if len(sys.argv) > 1 else "local_def"

H = lambda x: x * 0.5
Pr = lambda x: H(x) * 2  # parent-only lambdas, like sr_test.py:37-38


def first_batch(loader):
    for data in loader:
        return data[0]


if case == "unguarded":
    loader = CVDB_safe()
    for data in loader:  # top-level statement that starts the workers
        x = data[0]
        break
    print("OK unguarded", tuple(x.shape))

if __name__ == "__main__" and case != "unguarded":
    if case == "local_def":
        x = first_batch(CVDB())
    elif case in ("module_def", "parent_lambda"):
        x = first_batch(CVDB_safe())
        if case == "parent_lambda":
            x = Pr(x)
    print("OK", case, tuple(x.shape))
