"""r16: a lambda reaches workers wrapped in a cloudpickle-based wrapper (detectron2 PicklableWrapper
shape), or through joblib's default loky backend: both ship it by value.

Cases: wrapper = MapDataset-like dataset holding Wrapper(lambda) given to DataLoader(num_workers=2);
joblib = joblib.Parallel(n_jobs=2)(delayed(lambda)(...)).
"""
import sys

import cloudpickle  # what joblib (>= 1.5) and detectron2 use
from torch.utils.data import DataLoader, Dataset


class PicklableWrapper:
    def __init__(self, obj):
        self._obj = obj

    def __reduce__(self):
        return cloudpickle.loads, (cloudpickle.dumps(self._obj),)

    def __call__(self, *args):
        return self._obj(*args)


class MapDataset(Dataset):
    def __init__(self, data, map_func):
        self._data = data
        self._map_func = PicklableWrapper(map_func)

    def __len__(self):
        return len(self._data)

    def __getitem__(self, i):
        return self._map_func(self._data[i])


def main(case):
    if case == "wrapper":
        loader = DataLoader(MapDataset(list(range(8)), lambda x: x * 2), batch_size=4, num_workers=2)
        print("sum", sum(b.sum().item() for b in loader))
    else:
        from joblib import Parallel, delayed
        print("joblib", Parallel(n_jobs=2)(delayed(lambda x: x * 2)(i) for i in range(4)))


if __name__ == "__main__":
    main(sys.argv[1])
