"""Module side of e_e3_01: a qutip-4-like parfor (multiprocessing.Pool + a module wrapper) and a
worker function that builds and calls a lambda inside the worker (qutip's Htls_rft pattern)."""
from functools import partial
from multiprocessing import Pool


def _task_wrapper_with_args(args, user_args):
    return args[0](*args[1], **user_args)


def parfor(func, *args, **kwargs):
    task_func = partial(_task_wrapper_with_args, user_args=kwargs)
    var = [[a[i] for a in args] for i in range(len(args[0]))]
    with Pool(processes=2) as pool:
        res = pool.map(task_func, [(func, v) for v in var])
    return [list(x) for x in zip(*res)]


def h_rft(pulse_area):
    rabi = pulse_area / 2
    return [lambda t: rabi * (t < 1.0)]


def scatter_with_lambda(pulse_area, n):
    coeff = h_rft(pulse_area)[0]   # lambda made and used inside the worker: never pickled
    return coeff(0.5) + n
