"""become-yukarin scripts shape: argparse + multiprocessing.Pool() at module level
(ln_jnas_subset.py) or inside a top-level `for model_name in ...` loop
(super_resolution_test.py / voice_conversion_test.py, gpu default None -> Pool()).
cases: hazard (Pool in top-level for loop), hazard_flat (Pool statement at top level),
safe (same work under the main guard)."""
import sys
import multiprocessing
from functools import partial

case = sys.argv[1]


def process(p, converter):
    return '%s:%s' % (converter, p)


if case == 'hazard':
    for model_name in ['m1']:
        process_partial = partial(process, converter=model_name)
        gpu = None
        if gpu is None:
            pool = multiprocessing.Pool(2)
            print(case, 'OK', pool.map(process_partial, range(4)))
            pool.close()
            pool.join()
elif case == 'hazard_flat':
    pool = multiprocessing.Pool(2)
    print(case, 'OK', pool.map(partial(process, converter='x'), range(4)))
    pool.close()
    pool.join()

if __name__ == '__main__' and case == 'safe':
    with multiprocessing.Pool(2) as pool:
        print(case, 'OK', pool.map(partial(process, converter='x'), range(4)))
