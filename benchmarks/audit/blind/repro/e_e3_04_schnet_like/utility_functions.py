"""Like cG-SchNet utility_functions.run_threaded: a Process subclass runs a module-level target."""
from multiprocessing import Process, Queue


class ProcessQ(Process):
    def __init__(self, queue, **kwargs):
        super().__init__(**kwargs)
        self._q = queue

    def run(self):
        self._q.put((self.name, self._target(**self._kwargs)))


def run_threaded(target, values, kwargs, n_threads=2):
    queue = Queue(n_threads)
    threads = []
    for i in range(n_threads):
        kw = dict(kwargs, values=values[i::n_threads])
        threads.append(ProcessQ(queue, target=target, name=str(i), kwargs=kw))
        threads[-1].start()
    out = [queue.get(True) for _ in threads]
    for t in threads:
        t.join()
    return sorted(out)


def check_valency(values, prog_str=""):
    return [v + 1 for v in values]
