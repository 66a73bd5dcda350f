import os
import tempfile
from multiprocessing import Pool
import pandas as pd


class PMUData:
    def __init__(self, paths, n_proc=2, use_lambda=False):
        if n_proc > 1:
            with Pool(processes=n_proc) as pool:
                fn = (lambda p: pd.read_csv(p)) if use_lambda else PMUData.load_single
                self.all_df = pd.concat(pool.map(fn, paths))

    @staticmethod
    def load_single(filepath):
        return pd.read_csv(filepath)


def make_files(n=4):
    d = tempfile.mkdtemp()
    out = []
    for i in range(n):
        p = os.path.join(d, "pmu%d.csv" % i)
        pd.DataFrame({"v": range(5)}).to_csv(p, index=False)
        out.append(p)
    return out
