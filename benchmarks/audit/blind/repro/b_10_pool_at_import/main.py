"""b_10: a user script imports the package at the top and calls it under its own main guard.

Cases (argv[1]): at_import (Pool created when attpool.mp_utils is imported: every spawned pool worker re-imports
main.py, hence the package, and starts a Pool while bootstrapping), lazy (Pool created on first call: safe twin)."""
import os
import sys

os.environ["B10_CASE"] = sys.argv[1]

from attpool.mapping import batch_map  # noqa: E402

if __name__ == "__main__":
    print("sum", sum(batch_map(range(8))))
    os._exit(0)  # the module-global pool is never closed; leave without waiting for it
