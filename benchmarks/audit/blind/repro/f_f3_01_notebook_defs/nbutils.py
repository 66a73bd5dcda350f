"""Stand-in for jigsaw's bin/utils.py and for a project module the notebook imports."""
from multiprocessing import Pool


def parallelize_dataframe(parts, func, n=2):
    # as bin/utils.py: Pool(cpu_count()).map(func, split)
    pool = Pool(n)
    try:
        return pool.map_async(func, parts).get(20)
    finally:
        pool.terminate()


def upper_words(part):
    return [w.upper() for w in part]


class ModuleDataset:
    def __init__(self, n=6):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i * 10
