"""Shape (dlgo examples/*.py, AlphaZero test.py): a statement at module level, with no main
guard, starts a multiprocessing.Pool (directly, or through a project module). Under spawn
each pool worker re-imports this script as __mp_main__ and reaches the same statement while
bootstrapping: RuntimeError 'An attempt has been made to start a new process before the
current process has finished its bootstrapping phase'.
Cases: hazard_crossmodule, hazard_samefile, safe (same calls under the main guard)."""
import sys
import multiprocessing
from pkg.processor import GoDataProcessor

CASE = sys.argv[1]  # spawn children get the parent's argv


def start():
    return 1


if CASE == "hazard_crossmodule":
    processor = GoDataProcessor()
    X = processor.load_go_data(4)          # like examples/train_generator.py:22
    print("OK", X)
elif CASE == "hazard_samefile":
    pool = multiprocessing.Pool(2)         # like AlphaZero test.py:15
    print("OK", [r.get() for r in [pool.apply_async(start, ()) for _ in range(4)]])
    pool.close()

if __name__ == "__main__" and CASE == "safe":
    processor = GoDataProcessor()
    print("OK", processor.load_go_data(4))
