"""A stand-in for mxnet.gluon.data (mxnet 1.x): Dataset.transform(fn) keeps fn on a
_LazyTransformDataset, and DataLoader(num_workers>0) starts a multiprocessing.Pool whose
initargs carry the dataset and whose tasks carry batchify_fn (both pickled with the
standard pickler under spawn), as mxnet's DataLoader does."""
import multiprocessing


class Dataset:
    def transform(self, fn):
        return _LazyTransformDataset(self, fn)

    def transform_first(self, fn):
        return _LazyTransformDataset(self, _First(fn))


class _First:
    def __init__(self, fn):
        self._fn = fn

    def __call__(self, x, *args):
        return (self._fn(x),) + args


class _LazyTransformDataset(Dataset):
    def __init__(self, data, fn):
        self._data = data
        self._fn = fn

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        item = self._data[idx]
        if isinstance(item, tuple):
            return self._fn(*item)
        return self._fn(item)


class ArrayDataset(Dataset):
    def __init__(self, a, b):
        self._a, self._b = list(a), list(b)

    def __len__(self):
        return len(self._a)

    def __getitem__(self, i):
        return self._a[i], self._b[i]


def default_batchify_fn(samples):
    return [list(x) for x in zip(*samples)] if isinstance(samples[0], tuple) else list(samples)


class Tuple:
    """gluoncv.data.batchify.Tuple: keeps one batchify function per field."""
    def __init__(self, *fns):
        self._fns = fns

    def __call__(self, samples):
        return [fn([s[i] for s in samples]) for i, fn in enumerate(self._fns)]


def Stack():
    return _stack


def _stack(xs):
    return list(xs)


_worker_dataset = None


def _worker_initializer(dataset):
    global _worker_dataset
    _worker_dataset = dataset


def _worker_fn(samples, batchify_fn):
    return batchify_fn([_worker_dataset[i] for i in samples])


class DataLoader:
    def __init__(self, dataset, batch_size=2, batchify_fn=None, num_workers=0, timeout=20):
        self._dataset = dataset
        self._batch_size = batch_size
        self._batchify_fn = batchify_fn or default_batchify_fn
        self._num_workers = num_workers
        self._timeout = timeout
        self._pool = None
        if num_workers > 0:
            self._pool = multiprocessing.Pool(num_workers, initializer=_worker_initializer,
                                              initargs=[dataset])

    def __iter__(self):
        idx = list(range(len(self._dataset)))
        batches = [idx[i:i + self._batch_size] for i in range(0, len(idx), self._batch_size)]
        try:
            for b in batches:
                if self._pool is None:
                    yield self._batchify_fn([self._dataset[i] for i in b])
                else:
                    yield self._pool.apply_async(_worker_fn, (b, self._batchify_fn)).get(self._timeout)
        finally:
            if self._pool is not None:
                self._pool.terminate()
