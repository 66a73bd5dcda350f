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
