# stand-in for pyBKT source-py/pyBKT/fit/EM_fit.py at dd81770: the Pool call sits under
# `if __name__ == "__main__":` inside run(), in a module imported as pyBKT.fit.EM_fit
import os
from multiprocessing import Pool


def inner(x):
    return sum(x)


def run(chunks, fixed_guard):
    x = []
    if fixed_guard:
        with Pool(len(chunks)) as p:
            x = p.map(inner, chunks)
    else:
        if __name__ == "__main__":  # "Ensure this block runs only when executed as a script, not when imported"
            with Pool(len(chunks)) as p:
                x = p.map(inner, chunks)
    total = 0
    for i in x:
        total += i
    return total, len(x)
