"""Small programs shared by several test modules."""

import textwrap

# A lambda collate_fn of a DataLoader in main(), under a guard: WSP201 at line 7, column 55; --fix hoists it.
LAMBDA_COLLATE = textwrap.dedent('''\
    import torch
    from torch.utils.data import DataLoader


    def main():
        ds = list(range(10))
        loader = DataLoader(ds, num_workers=2, collate_fn=lambda b: b)
        for batch in loader:
            print(batch)


    if __name__ == "__main__":
        main()
''')

# A lambda mapped over a Pool in main(), under a guard: WSP201 at line 6, column 24 (and nothing else).
LAMBDA_POOL = '''\
from multiprocessing import Pool


def main():
    with Pool(2) as pool:
        print(pool.map(lambda x: x * x, range(4)))


if __name__ == "__main__":
    main()
'''

# A Pool started at import time: WSP101 at line 8, column 8.
POOL_AT_IMPORT = textwrap.dedent('''\
    import multiprocessing


    def square(x):
        return x * x


    pool = multiprocessing.Pool(2)
    print(pool.map(square, range(3)))
''')

# The worker count comes from a sibling module, config.py: with NUM_WORKERS > 0 the lambda reaches worker
# processes (WSP201 at line 5, column 67), so the findings of this script depend on config.py.
TRAIN_WITH_SIBLING_CONFIG = textwrap.dedent('''\
    from torch.utils.data import DataLoader

    from config import NUM_WORKERS

    loader = DataLoader(range(4), num_workers=NUM_WORKERS, collate_fn=lambda b: b)
    for batch in loader:
        pass
''')
