# mimics points2surf source/data_loader.py: a Dataset that keeps a Cache whose
# loadfunc is the plain function PointcloudPatchDataset.load_shape_by_index
import numpy as np
import torch.utils.data as data


class Cache:
    def __init__(self, capacity, loader, loadfunc):
        self.elements = {}
        self.capacity = capacity
        self.loader = loader
        self.loadfunc = loadfunc

    def get(self, element_id):
        if element_id not in self.elements:
            if len(self.elements) >= self.capacity:
                self.elements.pop(next(iter(self.elements)))
            self.elements[element_id] = self.loadfunc(self.loader, element_id)
        return self.elements[element_id]


class PointcloudPatchDataset(data.Dataset):
    def __init__(self, n_shapes=4, seed=1):
        self.shape_cache = Cache(2, self, PointcloudPatchDataset.load_shape_by_index)
        self.n_shapes = n_shapes
        self.rng = np.random.RandomState(seed)
        self.rng_global_sample = np.random.RandomState(seed)

        def load_pts():  # local helper used only inside __init__ (like points2surf)
            return 3
        self.points_per_shape = load_pts()

    def load_shape_by_index(self, shape_ind):
        return np.full((self.points_per_shape, 3), float(shape_ind), dtype=np.float32)

    def __len__(self):
        return self.n_shapes * self.points_per_shape

    def __getitem__(self, index):
        shape = self.shape_cache.get(index // self.points_per_shape)
        return shape[index % self.points_per_shape] + self.rng.rand()
