"""j3 shape 05 (BBO-Rietveld notebooks): an Optuna-style objective(trial) defines evaluate()
locally and runs it in multiprocessing.Process(target=evaluate, args=(config, ...)) with a Queue;
config is an instance of a dataclass defined in the notebook.
cases: local_target, notebook_config_arg (hazards); direct_call, module_target, optimize_lambda (safe)."""
import sys
from dataclasses import dataclass
from multiprocessing import Process, Queue


@dataclass
class Config:
    seed: int


def evaluate_module(config, n, q):
    q.put(config.seed + n)


NB_SRC = '''
from dataclasses import dataclass
@dataclass
class NotebookConfig:
    seed: int
'''


def optimize(func, n_trials):  # stand-in for study.optimize(n_jobs=1): calls func in-process
    return [func(t) for t in range(n_trials)]


def objective(trial, config, mode):
    def evaluate(config, n, q):
        q.put(config.seed + n)

    if mode == "direct_call":
        q = Queue()
        evaluate(config, trial, q)
        return q.get(timeout=5)
    target = evaluate if mode == "local_target" else evaluate_module
    q = Queue()
    p = Process(target=target, args=(config, trial, q))
    p.start()
    r = q.get(timeout=20)
    p.join()
    return r


def run(case):
    if case == "local_target":
        res = optimize(lambda t: objective(t, Config(1), "local_target"), 1)
    elif case == "notebook_config_arg":
        ns = {"__name__": "__main__"}
        exec(NB_SRC, ns)
        res = optimize(lambda t: objective(t, ns["NotebookConfig"](1), "module_target"), 1)
    elif case == "direct_call":
        res = optimize(lambda t: objective(t, Config(1), "direct_call"), 2)
    elif case == "module_target":
        res = [objective(t, Config(1), "module_target") for t in range(2)]
    elif case == "optimize_lambda":
        res = optimize(lambda t: objective(t, Config(1), "module_target"), 2)
    else:
        raise SystemExit("unknown case")
    print("OK", case, res)


if __name__ == "__main__":
    run(sys.argv[1])
