"""Shape (Maast / MIDAS `parallel`): mp.Pool(threads, init_worker) with init_worker defined inside parallel().
A Pool starts `threads` (default 1) worker processes whose Process object carries the initializer: under
spawn it is pickled -> Can't pickle local object 'parallel.<locals>.init_worker'.
cases: local_init (hazard), safe_module_init (module-level initializer),
       worker_global (safe: the worker function itself binds a `global` that a helper reads, as MIDAS species_pileup)"""
import multiprocessing as mp, signal, sys, time


def module_init_worker():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def keep(x):
    global global_args
    return x >= global_args["min"]


def pileup(args, xs):
    global global_args
    global_args = args
    return sum(1 for x in xs if keep(x))


def job(a, b):
    return a * b


def parallel(function, argument_list, threads, local=True):
    def init_worker():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    pool = mp.Pool(int(threads), init_worker if local else module_init_worker)
    results = [pool.apply_async(function, args=a) for a in argument_list]
    pool.close()
    while True:
        if all(r.ready() for r in results):
            return [r.get() for r in results]
        time.sleep(0.1)


if __name__ == "__main__":
    case = sys.argv[1]
    if case == "local_init":
        print(parallel(job, [(1, 2), (3, 4)], 1, local=True))
    elif case == "safe_module_init":
        print(parallel(job, [(1, 2), (3, 4)], 1, local=False))
    elif case == "worker_global":
        print(parallel(pileup, [({"min": 2}, [1, 2, 3])], 1, local=False))
    print("OK", case)
