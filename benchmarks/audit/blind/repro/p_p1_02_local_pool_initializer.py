# mimics bert4keras snippets.parallel_apply_generator (local worker_step as Pool initializer),
# pretraining/data_utils.py process() (local paragraph_process as func) and its main guard
# (word_segment defined under the guard and kept on the dataset object).
# usage: p_p1_02_local_pool_initializer.py closure|local_func|guard_def|safe
import sys
from multiprocessing import Pool, Queue

def _module_worker_step(in_queue, out_queue, func):
    while True:
        i, d = in_queue.get()
        out_queue.put((i, func(d)))

def parallel_apply(func, iterable, workers, fixed):
    in_queue, out_queue = Queue(100), Queue()
    if not fixed:
        def worker_step(in_queue, out_queue):          # snippets.py:221 shape
            while True:
                i, d = in_queue.get()
                out_queue.put((i, func(d)))
        pool = Pool(workers, worker_step, (in_queue, out_queue))
    else:
        pool = Pool(workers, _module_worker_step, (in_queue, out_queue, func))
    n = 0
    for i, d in enumerate(iterable):
        in_queue.put((i, d)); n += 1
    res = [out_queue.get(timeout=20) for _ in range(n)]
    pool.terminate()
    return res

class TrainingDataset:
    def __init__(self, word_segment):
        self.word_segment = word_segment
    def paragraph_process(self, texts):
        return [self.word_segment(t) for t in texts]
    def process(self, corpus, local):
        if local:
            def paragraph_process(texts):                # data_utils.py:116 shape
                return self.paragraph_process(texts)
            f = paragraph_process
        else:
            f = self.paragraph_process
        return parallel_apply(f, corpus, 2, fixed=(case != "closure"))

def module_segment(t):
    return t.split()

case = sys.argv[1]
if __name__ == "__main__":
    corpus = [["a b", "c d"], ["e f"]]
    if case == "guard_def":
        def word_segment(text):                           # data_utils.py:373 shape
            return text.split()
        TD = TrainingDataset(word_segment)
        print("OK", TD.process(corpus, local=False))
    elif case in ("closure", "local_func"):
        TD = TrainingDataset(module_segment)
        print("OK", TD.process(corpus, local=True))
    else:
        TD = TrainingDataset(module_segment)
        print("OK", TD.process(corpus, local=False))
