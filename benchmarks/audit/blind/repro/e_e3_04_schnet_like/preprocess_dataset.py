"""Like cG-SchNet preprocess_dataset.py: workers are multiprocessing.Process objects whose args
carry a lambda that closes over the preprocessing parameters."""
from functools import partial
from multiprocessing import Process, Queue


def preprocess_molecules(idcs, datapath, valence):
    return [i * valence for i in idcs]


def _processing_worker(q_in, q_out, task):
    while True:
        item = q_in.get(True)
        if item is None:
            break
        q_out.put(task(item))


def preprocess_dataset(datapath, valence, n_threads, style="lambda"):
    threads, qs_in, qs_out = [], [], []
    for i in range(n_threads):
        qs_in.append(Queue(1))
        qs_out.append(Queue(1))
        task = (lambda x: preprocess_molecules(x, datapath, valence)) if style == "lambda" \
            else partial(preprocess_molecules, datapath=datapath, valence=valence)
        threads.append(Process(target=_processing_worker, args=(qs_out[-1], qs_in[-1], task)))
        threads[-1].start()
    res = []
    for i in range(n_threads):
        qs_out[i].put([i, i + 1])
        res.append(qs_in[i].get())
        qs_out[i].put(None)
    for t in threads:
        t.join()
    return res
