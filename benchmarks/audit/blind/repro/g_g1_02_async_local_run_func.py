"""Mimics pfrl/experiments/train_agent_async.py + pfrl/utils/async_.py: a library function defines
run_func locally and hands it to mp.Process(target=run_func) via run_async (A3C/ACER examples).
Cases:
  hazard  local run_func closure as Process target
  safe    module-level run function + functools.partial with picklable arguments
"""
import functools
import multiprocessing as mp
import sys


def run_async(n_process, run_func):
    ps = [mp.Process(target=run_func, args=(i,)) for i in range(n_process)]
    for p in ps:
        p.start()
    for p in ps:
        p.join()
        assert p.exitcode == 0, p.exitcode


def train_agent_async_hazard(processes, steps):
    counter = mp.Value("l", 0)

    def run_func(process_idx):
        with counter.get_lock():
            counter.value += steps

    run_async(processes, run_func)
    return counter.value


def _run_one(counter, steps, process_idx):
    with counter.get_lock():
        counter.value += steps


def train_agent_async_safe(processes, steps):
    counter = mp.Value("l", 0)
    run_async(processes, functools.partial(_run_one, counter, steps))
    return counter.value


if __name__ == "__main__":
    case = sys.argv[1]
    fn = {"hazard": train_agent_async_hazard, "safe": train_agent_async_safe}[case]
    print("counter ->", fn(2, 5))
