"""AdvFaces shape (utils/dataset.py + train.py): a Dataset method starts multiprocessing.Process
workers whose target is a function defined inside the method; train.py's main() passes a lambda
(proc_func) that the worker closure calls.
cases: local_target (index_queue_worker-like local def -> Process), lambda_arg (module-level target,
but the lambda proc_func is passed as an argument), safe (module-level target and function)."""
import sys, time
from multiprocessing import Process, Queue


def _batch_worker(q, seed, proc_func):
    q.put(("batch", seed, proc_func([1, 2])))


def _double(x):
    return [v * 2 for v in x]


class Dataset:
    def __init__(self):
        self.batch_queue = None

    def start_batch_queue_local(self, proc_func, num_threads=3):
        self.batch_queue = Queue()
        def batch_queue_worker(seed):  # local function as Process target
            self.batch_queue.put(("batch", seed, proc_func([1, 2])))
        self.workers = []
        for i in range(num_threads):
            w = Process(target=batch_queue_worker, args=(i,))
            w.daemon = True
            w.start()
            self.workers.append(w)

    def start_batch_queue_global(self, proc_func, num_threads=3):
        self.batch_queue = Queue()
        self.workers = []
        for i in range(num_threads):
            w = Process(target=_batch_worker, args=(self.batch_queue, i, proc_func))
            w.daemon = True
            w.start()
            self.workers.append(w)


def main(case):
    ds = Dataset()
    if case == "local_target":
        ds.start_batch_queue_local(_double)
    elif case == "lambda_arg":
        proc_func = lambda images: _double(images)
        ds.start_batch_queue_global(proc_func)
    elif case == "safe":
        ds.start_batch_queue_global(_double)
    else:
        raise SystemExit("unknown case")
    got = [ds.batch_queue.get(timeout=20) for _ in range(3)]
    for w in ds.workers:
        w.join(5)
    print("OK", case, sorted(got))


if __name__ == "__main__":
    main(sys.argv[1])
