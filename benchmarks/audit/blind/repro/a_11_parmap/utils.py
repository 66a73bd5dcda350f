"""lcnn lcnn/utils.py parmap shape: Process(target=module-level handler, args=(f, q_in, q_out))."""
import multiprocessing


def _parallel_handle(f, q_in, q_out):
    while True:
        i, x = q_in.get()
        if i is None:
            break
        q_out.put((i, f(x)))


def parmap(f, X, nprocs=2, progress_bar=lambda x: x):
    q_in, q_out = multiprocessing.Queue(1), multiprocessing.Queue()
    proc = [multiprocessing.Process(target=_parallel_handle, args=(f, q_in, q_out), daemon=True)
            for _ in range(nprocs)]
    for p in proc:
        p.start()
    sent = [q_in.put((i, x)) for i, x in enumerate(X)]
    [q_in.put((None, None)) for _ in range(nprocs)]
    res = [q_out.get(timeout=20) for _ in progress_bar(range(len(sent)))]
    [p.join() for p in proc]
    return [x for i, x in sorted(res)]
