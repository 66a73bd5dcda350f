# Mimics NGCF utility/load_data.py: Data() reads the interaction files and builds a sparse matrix
import os, time
import numpy as np
import scipy.sparse as sp


class Data(object):
    def __init__(self, n_users=200, n_items=300):
        with open(os.environ["R3_BUILD_LOG"], "a") as f:   # one line per build, per process
            f.write("build pid=%d\n" % os.getpid())
        rng = np.random.RandomState(0)
        self.n_users, self.n_items = n_users, n_items
        self.R = sp.dok_matrix((n_users, n_items), dtype=np.float32)
        self.train_items, self.test_set = {}, {}
        for u in range(n_users):
            items = rng.choice(n_items, 10, replace=False).tolist()
            for i in items[:8]:
                self.R[u, i] = 1.0
            self.train_items[u], self.test_set[u] = items[:8], items[8:]
