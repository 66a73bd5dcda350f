from multiprocessing import Process, Queue


class _Sampler(Process):
    def __init__(self, dataset, q, generate_batch):
        self._q = q
        self._generate_batch = generate_batch
        self._dataset = dataset
        super().__init__()

    def run(self):
        for x in self._generate_batch(self._dataset):
            self._q.put(x, block=True)


class Sampler:
    def __init__(self, dataset, generate_batch, num_process=2):
        self._dataset, self._generate_batch, self._num_process = dataset, generate_batch, num_process
        self._q, self._runners = None, []

    def next_batch(self):
        if self._q is None:
            self._q = Queue(maxsize=self._num_process)
            for _ in range(self._num_process):
                r = _Sampler(self._dataset, self._q, self._generate_batch)
                r.daemon = True
                r.start()
                self._runners.append(r)
        return self._q.get(block=True)


def RandomPairwiseSampler(dataset, batch_size, num_process=2):
    def batch(dataset, batch_size=batch_size):       # local function (random_pairwise_sampler.py:9)
        while True:
            yield dataset[:batch_size]
    return Sampler(dataset, batch, num_process)


def _module_batch(dataset):
    while True:
        yield dataset[:2]


def ModuleSampler(dataset, num_process=2):
    return Sampler(dataset, _module_batch, num_process)
