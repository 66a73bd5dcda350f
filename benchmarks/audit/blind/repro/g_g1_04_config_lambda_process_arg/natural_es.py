"""Mimics DistributedES natural_es.py all_tasks(): mp.Process(target=multi_runs, args=(cf,)) for each config.
Cases:
  hazard        config whose __init__ stores lambdas (BipedalWalkerConfig.action_clip fails first)
  hazard_envfn  only BasicConfig.env_fn lambda left
  safe    config built from module-level callables (functools.partial)
"""
import multiprocessing as mp
import sys

from config import WalkerConfig, SafeWalkerConfig, EnvFnOnlyConfig


def multi_runs(config):
    env = config.env_fn()
    print("child env", env.name, "clip", config.action_clip(3))


def all_tasks(cfg_cls):
    ps = []
    for cf in [cfg_cls(8)]:
        cf.num_workers = 2
        ps.append(mp.Process(target=multi_runs, args=(cf,)))
    for p in ps:
        p.start()
    for p in ps:
        p.join()
        assert p.exitcode == 0


if __name__ == "__main__":
    all_tasks({"hazard": WalkerConfig, "hazard_envfn": EnvFnOnlyConfig, "safe": SafeWalkerConfig}[sys.argv[1]])
