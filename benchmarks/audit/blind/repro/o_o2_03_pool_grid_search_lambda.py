"""Mimics 2019-nCoV-Fit fit.py: grid_search(target_func, ranges, proc=16) submits target_func to
pool.apply_async; test_search passes a lambda. find_local_minimum maps a module-level function and
uses a lambda only in the parent. Cases: lambda (hazard), module_func (safe), parent_lambda (safe)."""
import sys
import math as mt
from itertools import product, repeat
from multiprocessing import Pool


def grid_search(target_func, para_ranges, proc=4):
    res = []
    with Pool(processes=proc) as pool:
        for grid in product(*(range(3) for _ in para_ranges)):
            paras = [lo + g * (hi - lo) / 2 for g, (lo, hi) in zip(grid, para_ranges)]
            res.append(pool.apply_async(target_func, paras))
        return [r.get() for r in res]


def is_local_minimum(array, cord):
    return cord if array[cord] <= min(array) else []


def find_local_minimum(array, proc=2):
    with Pool(processes=proc) as pool:
        cords = list(map(lambda x: x, range(len(array))))  # lambda used in the parent only
        res = pool.starmap(is_local_minimum, zip(repeat(array), cords))
    return [e for e in res if e != []]


def sir_fit_func(a, b):
    return (a - 0.3) ** 2 + (b - 0.1) ** 2


def main(case):
    if case == 'lambda':
        func = lambda x, y: mt.sin(x * 2 * mt.pi) + mt.cos(2 * mt.pi * y)
        print('OK', case, min(grid_search(func, [(-1, 1), (-1, 1)])))
    elif case == 'module_func':
        print('OK', case, min(grid_search(sir_fit_func, [(0, 1), (0, 1)])))
    elif case == 'parent_lambda':
        print('OK', case, find_local_minimum([3, 1, 2]))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else 'lambda')
