# Mimics guoyang9/NCF data_utils.py: load_all() reads ratings and fills a dok matrix; NCFData is module-level
import os
import numpy as np
import scipy.sparse as sp
import torch.utils.data as data


def load_all(n_users=50, n_items=80):
    with open(os.environ.get("R3_LOAD_LOG", os.devnull), "a") as f:
        f.write("load pid=%d\n" % os.getpid())
    rng = np.random.RandomState(0)
    train = [[u, int(i)] for u in range(n_users) for i in rng.choice(n_items, 5, replace=False)]
    mat = sp.dok_matrix((n_users, n_items), dtype=np.float32)
    for u, i in train:
        mat[u, i] = 1.0
    return train, n_users, n_items, mat


class NCFData(data.Dataset):
    def __init__(self, features, num_item, train_mat):
        self.features, self.num_item, self.train_mat = features, num_item, train_mat

    def __len__(self):
        return len(self.features)

    def __getitem__(self, idx):
        u, i = self.features[idx]
        return u, i, float(self.train_mat[u, i])
