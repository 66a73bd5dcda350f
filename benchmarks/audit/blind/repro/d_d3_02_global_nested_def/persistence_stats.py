"""Mimics TDA-tutorial persistence_statistics.py: hausd_interval declares `global hauss_dist` and defines it
inside the function, then hands it to multiprocessing.Pool.map."""
import numpy as np


def hausd_interval(data, m=3, B=8, ncores=2, pairwise_dist=False):
    from multiprocessing import Pool
    n = np.size(data, 0)
    if not pairwise_dist:
        global hauss_dist
        def hauss_dist(m):
            I = np.random.choice(n, m)
            return float(np.abs(data[I]).max())
        with Pool(ncores) as p:
            dist_vec = p.map(hauss_dist, [m] * B)
    else:
        def hauss_dist(m):          # also bound to the module global by the `global` statement above
            I = np.random.choice(n, m)
            return float(data[I].max())
        with Pool(ncores) as p:
            dist_vec = p.map(hauss_dist, [m] * B)
    return 2 * np.quantile(dist_vec, 0.9)


def _hauss_dist_top(m, data):
    n = np.size(data, 0)
    I = np.random.choice(n, m)
    return float(np.abs(data[I]).max())


def hausd_interval_fixed(data, m=3, B=8, ncores=2):
    from functools import partial
    from multiprocessing import Pool
    with Pool(ncores) as p:
        dist_vec = p.map(partial(_hauss_dist_top, data=data), [m] * B)
    return 2 * np.quantile(dist_vec, 0.9)
