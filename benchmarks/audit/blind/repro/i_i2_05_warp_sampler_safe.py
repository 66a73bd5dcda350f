"""Shape of pmixer/SASRec.pytorch python/main.py + utils.py: argparse and a small args.txt write run at
the top level (re-run cheaply by each spawned worker), the training under the main guard builds
WarpSampler, which starts n_workers=3 multiprocessing.Process(target=sample_function) -- a module-level
function -- feeding a Queue.  Case safe (as in the repository) works under spawn; case unguarded
(sampler built at the top level, like kang205/SASRec's Python 2 main.py) fails."""
import os
import sys
import tempfile
import numpy as np
from multiprocessing import Process, Queue

CASE = sys.argv[1]
out = os.path.join(tempfile.gettempdir(), "i_i2_05_args.txt")
with open(out, "w") as f:  # top-level cheap work, repeated in each worker on re-import
    f.write(CASE)


def sample_function(user_train, batch_size, result_queue, seed):
    rng = np.random.RandomState(seed)
    while True:
        uids = rng.randint(0, len(user_train), size=batch_size)
        result_queue.put(zip(*[(u, user_train[u]) for u in uids]))


class WarpSampler:
    def __init__(self, user_train, batch_size=4, n_workers=3):
        self.result_queue = Queue(maxsize=n_workers * 10)
        self.processors = []
        for i in range(n_workers):
            self.processors.append(Process(target=sample_function,
                                           args=(user_train, batch_size, self.result_queue, i)))
            self.processors[-1].daemon = True
            self.processors[-1].start()

    def next_batch(self):
        return list(self.result_queue.get())

    def close(self):
        for p in self.processors:
            p.terminate()
            p.join()


user_train = {i: [i, i + 1] for i in range(10)}

if CASE == "unguarded":
    sampler = WarpSampler(user_train)
    sampler.next_batch()
    sampler.close()
    print("OK", CASE)

if __name__ == "__main__" and CASE == "safe":
    sampler = WarpSampler(user_train)
    for _ in range(3):
        sampler.next_batch()
    sampler.close()
    print("OK", CASE)
