"""Mimics chainerrl/misc/async_.py run_async + experiments/train_agent_async.py."""
import multiprocessing as mp
import random


def _module_set_seed_and_run(process_idx, run_func):
    random.seed(process_idx)
    run_func(process_idx)


def run_async(n_process, run_func, local_target=True):
    processes = []

    def set_seed_and_run(process_idx, run_func):      # local target (async_.py:173)
        random.seed(process_idx)
        run_func(process_idx)

    target = set_seed_and_run if local_target else _module_set_seed_and_run
    for process_idx in range(n_process):
        processes.append(mp.Process(target=target, args=(process_idx, run_func)))
    for p in processes:
        p.start()
    for p in processes:
        p.join()
    return [p.exitcode for p in processes]


def _module_run_func(process_idx, counter):
    with counter.get_lock():
        counter.value += 1


class RunFunc:
    def __init__(self, counter):
        self.counter = counter

    def __call__(self, process_idx):
        _module_run_func(process_idx, self.counter)


def train_agent_async(processes, make_env, local_target=True, local_run_func=True):
    counter = mp.Value('i', 0)

    def run_func(process_idx):                        # local run_func (train_agent_async.py:203)
        env = make_env(process_idx, test=False)
        with counter.get_lock():
            counter.value += 1

    f = run_func if local_run_func else RunFunc(counter)
    codes = run_async(processes, f, local_target=local_target)
    return counter.value, codes
