"""Safe look-alikes around multiprocessing.Pool (RAVE scripts/preprocess.py flatmap, dejavu fingerprint_directory).
Cases: callback_lambda (safe: lambdas are map_async callback/error_callback, run in the parent),
staticmethod_worker (safe: Pool.imap_unordered(Class.staticmethod) pickles by qualified name),
lambda_func (hazard twin: lambda as the Pool function, WSP201)."""
import functools
import multiprocessing
import os
import sys
from itertools import repeat


def load_chunk(x):
    return [x, x + 100]


def flat_mapper(func, arg):
    data, queue = arg
    for item in func(data):
        queue.put(item)


class Dejavu:
    @staticmethod
    def _fingerprint_worker(arguments):
        name, limit = arguments
        return name, limit * 2


def main(case):
    pool = multiprocessing.Pool(2)
    if case == "callback_lambda":
        queue = multiprocessing.Manager().Queue(maxsize=os.cpu_count())
        pool.map_async(functools.partial(flat_mapper, load_chunk), zip(range(4), repeat(queue)), None,
                       lambda _: queue.put(None), lambda *e: print(e))
        out = []
        item = queue.get()
        while item is not None:
            out.append(item)
            item = queue.get()
        print("OK", sorted(out))
    elif case == "staticmethod_worker":
        print("OK", sorted(pool.imap_unordered(Dejavu._fingerprint_worker, [("a", 1), ("b", 2)])))
    elif case == "lambda_func":
        print("OK", pool.map(lambda x: x + 1, range(4)))
    pool.close()
    pool.join()


if __name__ == "__main__":
    main(sys.argv[1])
