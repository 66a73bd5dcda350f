"""Shape: a training script's main() defines make_env locally and hands it (functools.partial or a lambda) to a
Process-based vector env of another module (chainerrl examples + MultiprocessVectorEnv).
Cases: hazard_local_partial, hazard_lambda, safe_module_partial (module-level factory + partial),
safe_lambda_in_worker (lambda created inside the factory, in the worker), safe_parent_lambda (lambda used only in the parent)."""
import functools
import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vecenv


class ScaledEnv:
    def __init__(self, idx, scale_fn=None):
        self.idx = idx
        self.scale_fn = scale_fn

    def step(self, a):
        r = a * 2
        return self.scale_fn(r) if self.scale_fn else r


def module_make_env(idx, test, scale=1.0):
    # a lambda built here runs inside the worker: never pickled
    return ScaledEnv(idx, scale_fn=lambda x: x * scale)


def main(case):
    num_envs = 2
    scale = 0.5

    def make_env(idx, test):
        return ScaledEnv(idx, scale_fn=lambda x: x * scale)

    if case == "hazard_local_partial":
        fns = [functools.partial(make_env, i, False) for i in range(num_envs)]
    elif case == "hazard_lambda":
        fns = [(lambda: make_env(i, False)) for i in range(num_envs)]
    elif case in ("safe_module_partial", "safe_lambda_in_worker"):
        fns = [functools.partial(module_make_env, i, False, scale) for i in range(num_envs)]
    elif case == "safe_parent_lambda":
        fns = [functools.partial(module_make_env, i, False, scale) for i in range(num_envs)]
        explorer_random = lambda: 1          # used only in the parent
        print("parent lambda", explorer_random())
    else:
        raise SystemExit("unknown case")
    env = vecenv.MultiprocessVectorEnv(fns)
    print(env.step([1, 2]))
    env.close()
    print("OK", case)


if __name__ == "__main__":
    main(sys.argv[1])
