"""q3 shape 04 (pyBKT): the library's E-step pool is wrapped in a main guard inside the library module,
so it never runs (x stays empty, the E-step sums nothing).
Cases: library_guard (as the repository, WSP102: result is empty on every start method),
       fixed_guarded_caller (the pool always runs; the caller script guarded: safe twin)
"""
import sys
from pyBKT_stub import EM_fit


def main(case):
    chunks = [[1, 2], [3, 4]]
    total, n = EM_fit.run(chunks, fixed_guard=(case == "fixed_guarded_caller"))
    if n == 0:
        raise SystemExit(f"FAIL {case}: pool block never ran (total={total}, no E-step results)")
    print("OK", case, total)


if __name__ == "__main__":
    main(sys.argv[1])
