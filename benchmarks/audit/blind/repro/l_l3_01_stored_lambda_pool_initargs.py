"""become-yukarin shape: dataset.create() builds a chain of LambdaProcess objects that
store lambdas; chainer's MultiprocessIterator sends the dataset to a multiprocessing.Pool
through initializer/initargs (standard pickler).
cases: hazard (lambda stored on the process object), safe (module-level function stored)."""
import sys
import multiprocessing


class LambdaProcess:
    def __init__(self, process):
        self._process = process

    def __call__(self, data, test):
        return self._process(data, test)


class DataProcessDataset:
    def __init__(self, data, process):
        self._data = data
        self._process = process

    def __len__(self):
        return len(self._data)

    def get_example(self, i):
        return self._process(self._data[i], test=False)


def pick_input(d, test):
    return d['input_path']


def create(use_lambda):
    if use_lambda:
        proc = LambdaProcess(lambda d, test: d['input_path'])
    else:
        proc = LambdaProcess(pick_input)
    data = [dict(input_path='a%d' % i) for i in range(8)]
    return {'train': DataProcessDataset(data, proc)}


_fetch_dataset = None


def _setup(dataset):
    global _fetch_dataset
    _fetch_dataset = dataset


def _fetch(i):
    return _fetch_dataset.get_example(i)


class MultiprocessIterator:
    """mimics chainer.iterators.MultiprocessIterator: Pool(initializer, initargs=(dataset,))"""
    def __init__(self, dataset, batch_size, n_processes=2):
        self.dataset = dataset
        self.batch_size = batch_size
        self.n_processes = n_processes

    def next(self):
        with multiprocessing.Pool(self.n_processes, initializer=_setup,
                                  initargs=(self.dataset,)) as pool:
            return pool.map(_fetch, range(self.batch_size))


if __name__ == '__main__':
    case = sys.argv[1]
    dataset = create(use_lambda=(case == 'hazard'))
    it = MultiprocessIterator(dataset['train'], 4)
    print(case, 'OK', it.next())
