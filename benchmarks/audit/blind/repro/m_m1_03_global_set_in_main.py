"""Shape (neat-python examples/lorenz-ctrnn/evolve_lorenz_ctrnn.py:209): the fitness function
run in Pool workers reads module globals that main() fills via `global` (main is called under
the main guard). Under fork the workers inherit the filled values; under spawn the worker
re-imports the script as __mp_main__ and sees None: TypeError: object of type 'NoneType' has no len().
Cases: hazard, safe (values handed to workers through the Pool initializer)."""
import sys
import multiprocessing

_train_inputs = None
_train_targets = None


def _init(inputs, targets):
    global _train_inputs, _train_targets
    _train_inputs, _train_targets = inputs, targets


def eval_genome(g):
    n = len(_train_inputs)
    return sum((g * _train_inputs[t] - _train_targets[t]) ** 2 for t in range(n)) / n


def main(case):
    global _train_inputs, _train_targets
    _train_inputs = [0.1 * i for i in range(10)]
    _train_targets = [0.2 * i for i in range(10)]
    if case == "hazard":
        pool = multiprocessing.Pool(2)  # like neat.ParallelEvaluator(num_workers, eval_genome)
    else:
        pool = multiprocessing.Pool(2, initializer=_init, initargs=(_train_inputs, _train_targets))
    with pool:
        print("OK", pool.map(eval_genome, [1.0, 2.0, 3.0]))


if __name__ == "__main__":
    main(sys.argv[1])
