# Mimics NGCF utility/batch_test.py: module-level Data(...) build, Pool(cores).map(test_one_user)
import multiprocessing, os
import numpy as np
from utility.load_data import Data

cores = 2
LAZY = os.environ.get("R3_CASE") == "safe"
data_generator = None if LAZY else Data()     # hazard line (import-time build)


def get_data():
    global data_generator
    if data_generator is None:
        data_generator = Data()
    return data_generator


def test_one_user(x):
    rating, u = x
    dg = get_data()
    test_items = list(set(range(dg.n_items)) - set(dg.train_items[u]))
    top = sorted(test_items, key=lambda i: -rating[i])[:20]
    return len(set(top) & set(dg.test_set[u]))


def test_one_user_args(x):
    rating, train, test_set, n_items = x
    test_items = list(set(range(n_items)) - set(train))
    top = sorted(test_items, key=lambda i: -rating[i])[:20]
    return len(set(top) & set(test_set))


def test(users):
    if LAZY:   # safe twin: build in the parent only, hand each worker what it needs
        dg = get_data()
        rate = np.random.RandomState(1).rand(len(users), dg.n_items)
        pool = multiprocessing.Pool(cores)
        res = pool.map(test_one_user_args, [(r, dg.train_items[u], dg.test_set[u], dg.n_items) for r, u in zip(rate, users)])
        pool.close()
        pool.join()
        return sum(res)
    rate = np.random.RandomState(1).rand(len(users), get_data().n_items)
    pool = multiprocessing.Pool(cores)
    res = pool.map(test_one_user, zip(rate, users))
    pool.close()
    pool.join()
    return sum(res)
