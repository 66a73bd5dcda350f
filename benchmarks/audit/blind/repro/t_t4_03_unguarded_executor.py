"""optimParallel example.py-like: a top-level call that maps a module-level
objective over a ProcessPoolExecutor. Cases: hazard (unguarded), guarded."""
import sys
import concurrent.futures


def f(x):
    return (x - 14) ** 2


def minimize_parallel(fun, xs):
    with concurrent.futures.ProcessPoolExecutor(max_workers=2) as ex:
        return list(ex.map(fun, xs))


CASE = sys.argv[1] if len(sys.argv) > 1 else "guarded"

if CASE == "hazard":
    print(minimize_parallel(f, [10, 20]))   # runs again in each spawned worker
    print("OK", CASE)


def main():
    print(minimize_parallel(f, [10, 20]))
    print("OK", CASE)


if __name__ == "__main__" and CASE == "guarded":
    main()
