"""Mimics bytepiece/bytepiece.py Trainer.pcount (and MultiTQ ner_task.py as a safe twin).
Cases:
  local_initializer - a function defined inside a method is the Pool *initializer*
                      (bytepiece pcount.<locals>.worker_func): fails under spawn, works under fork.
  lambda_init       - worker is module-level, but the `init = lambda: ...` / `split = lambda ...`
                      closures are handed to it through initargs: fails under spawn (what remains
                      once worker_func is moved to module level).
  module_level      - safe twin: module-level worker, plain callables/bound methods as initargs.
  sort_lambda       - lambda used only in the parent (sorted(key=lambda ...)): safe.
  initializer_ctx   - MultiTQ ner_task.py: module-level initializer + initargs, module-level task,
                      under the main guard: safe under spawn.
"""
import sys
from multiprocessing import Pool, Queue


class Trainer:
    def __init__(self, order=3):
        self.order = order

    def count_ngrams(self, texts):
        ngrams = [{} for _ in range(self.order + 1)]
        for t in texts:
            for i in range(len(t)):
                for j in range(self.order + 1):
                    k = t[i:i + j]
                    ngrams[j][k] = ngrams[j].get(k, 0) + 1
        return ngrams

    def pcount_local(self, texts, workers=2):
        count, init = self.count_ngrams, (lambda: [{} for _ in range(self.order + 1)])

        def merge(a, b):
            for i, G in enumerate(b):
                for k, v in G.items():
                    a[i][k] = a[i].get(k, 0) + v

        def worker_func(in_queue, out_queue):          # local function as initializer
            counter = init()
            while True:
                inputs = in_queue.get()
                if inputs is None:
                    break
                merge(counter, count(inputs))
            out_queue.put(counter)

        return _drive(worker_func, texts, workers, init, merge)

    def pcount_lambda(self, texts, workers=2):
        init = lambda: [{} for _ in range(self.order + 1)]   # closure through initargs
        return _drive(_module_worker, texts, workers, init, _merge, extra=(self.count_ngrams, _merge, init))

    def pcount_ok(self, texts, workers=2):
        return _drive(_module_worker, texts, workers, self.fresh, _merge, extra=(self.count_ngrams, _merge, self.fresh))

    def fresh(self):
        return [{} for _ in range(self.order + 1)]


def _merge(a, b):
    for i, G in enumerate(b):
        for k, v in G.items():
            a[i][k] = a[i].get(k, 0) + v


def _module_worker(in_queue, out_queue, count, merge, init):
    counter = init()
    while True:
        inputs = in_queue.get()
        if inputs is None:
            break
        merge(counter, count(inputs))
    out_queue.put(counter)


def _drive(worker, texts, workers, init, merge, extra=()):
    in_q, out_q = Queue(workers + 1), Queue()
    pool = Pool(workers, worker, (in_q, out_q) + tuple(extra))
    for i in range(0, len(texts), 2):
        in_q.put(texts[i:i + 2])
    for _ in range(workers):
        in_q.put(None)
    counter = init()
    for _ in range(workers):
        merge(counter, out_q.get(timeout=30))
    pool.terminate()
    return counter


_KEYS = None


def _worker_init(keys):
    global _KEYS
    _KEYS = set(keys)


def _match(text):
    return text, text in _KEYS


if __name__ == "__main__":
    case = sys.argv[1]
    texts = [b"hello world", b"hello there", b"world peace", b"peace out"] * 2
    t = Trainer()
    if case == "local_initializer":
        print("unigrams:", len(t.pcount_local(texts)[1]))
    elif case == "lambda_init":
        print("unigrams:", len(t.pcount_lambda(texts)[1]))
    elif case == "module_level":
        print("unigrams:", len(t.pcount_ok(texts)[1]))
    elif case == "sort_lambda":
        print(sorted({b"a": 3, b"bb": 1}.items(), key=lambda kv: (len(kv[0]), -kv[1])))
    elif case == "initializer_ctx":
        with Pool(2, initializer=_worker_init, initargs=(["Obama", "Iran"],)) as p:
            print(list(p.imap_unordered(_match, ["Obama", "Paris"])))
    print("OK", case)
