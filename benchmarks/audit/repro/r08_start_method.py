"""r08: set_start_method at import time (WSP104) versus inside the guard / in main().

Cases: import_time = multiprocessing.set_start_method("spawn") at module level, then a Pool;
guarded = the same call inside `if __name__ == "__main__":` without force (rpc_parameter_server shape);
in_main_force = set_start_method("spawn", force=True) in main() called under the guard (hogwild/demo shape).
"""
import multiprocessing as mp
import sys

CASE = sys.argv[1]
if CASE == "import_time":
    mp.set_start_method("spawn")


def square(x):
    return x * x


def main():
    if CASE == "in_main_force":
        mp.set_start_method("spawn", force=True)
    with mp.Pool(2) as pool:
        print("squares", pool.map(square, range(4)))


if __name__ == "__main__":
    if CASE == "guarded":
        mp.set_start_method("spawn")
    main()
