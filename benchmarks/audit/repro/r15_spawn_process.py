"""r15: torch.multiprocessing.spawn / Process with module-level versus local targets.

Cases: module_fn = mp.spawn(module-level fn) under the guard (imagenet/ddp shape);
local_fn = mp.spawn(nested def); process_lambda = Process(target=lambda).start().
"""
import sys

import torch.multiprocessing as mp


def worker(rank, tag):
    print("worker", rank, tag, flush=True)


def main(case):
    if case == "module_fn":
        mp.spawn(worker, args=("ok",), nprocs=2, join=True)
    elif case == "local_fn":
        def local_worker(rank):
            print("local", rank)
        mp.spawn(local_worker, nprocs=2, join=True)
    elif case == "process_lambda":
        p = mp.Process(target=lambda: print("lambda ran"))
        p.start()
        p.join()
        print("exitcode", p.exitcode)


if __name__ == "__main__":
    main(sys.argv[1])
