"""Script side (BulletArm tutorials, batch-ppo scripts/train.py + visualize.py, pokemonred_puffer
train.py/sweep.py, iris trainer.py, AgileRL demos).  Usage: train.py CASE"""
import functools
import sys
from multiprocessing import Process

import env_factory
from env_factory import make_block_env

CASE = sys.argv[1] if len(sys.argv) > 1 else "local_thunk"


def _create_environment(config):
    return make_block_env(config)


def make_env_creator(kind):
    def env_creator(**kw):                                      # pokemonred_puffer train.py:80 (WSP202)
        return make_block_env(kw)
    return env_creator


def wandb_agent_like(function=None, count=1):
    for _ in range(count):
        function()


def sweep_agent():
    def _fn():                                                  # pokemonred_puffer sweep.py:290 (WSP202)
        print("sweep run")
    proc = Process(target=wandb_agent_like, kwargs=dict(function=_fn, count=1))
    proc.start()
    proc.join()
    return proc.exitcode


def main():
    config = {"seed": 3}
    if CASE == "local_thunk":            # hazard WSP202 (BulletArm createEnvs(1, ...))
        envs = env_factory.createMultiprocessEnvs(2, config, planner_lambda=False)
    elif CASE == "factory_lambda":       # hazard WSP201 (the planner lambda, once _thunk is fixed)
        envs = env_factory.createMultiprocessEnvsPartial(2, config, planner_lambda=True)
    elif CASE == "script_lambda":        # hazard WSP201 (batch-ppo train.py:118 / visualize.py:111)
        envs = env_factory.define_batch_env(lambda: _create_environment(config), 2, True)
    elif CASE == "local_creator":        # hazard WSP202 (pokemonred_puffer make_env_creator)
        envs = env_factory.define_batch_env(functools.partial(make_env_creator("x"), seed=1), 2, True)
    elif CASE == "local_fn_kwarg":       # hazard WSP202 (pokemonred_puffer sweep.py _fn)
        print("EXITCODE", sweep_agent())
        return
    elif CASE == "partial_module":       # safe (iris trainer.py:66 partial(instantiate, config=...))
        envs = env_factory.define_batch_env(functools.partial(_create_environment, config), 2, True)
    elif CASE == "partial_factories":    # safe twin of local_thunk + factory_lambda
        envs = env_factory.createMultiprocessEnvsPartial(2, config, planner_lambda=False)
    elif CASE == "cloudpickle_local":    # safe (easy-rl A2C make_envs._thunk, AgileRL make_vect_envs)
        envs = env_factory.make_vect_envs("CartPole", 2)
    elif CASE == "cloudpickle_lambda":   # safe (AgileRL demo_multi_agent lambda to AsyncPettingZooVecEnv)
        envs = env_factory.SubprocVecEnvCP([lambda: make_block_env(config) for _ in range(2)])
    elif CASE == "serial":               # safe (num_processes == 0 / env_processes False / Serial backend)
        envs = env_factory.define_batch_env(lambda: _create_environment(config), 2, False)
        print("RESULT", envs)
        return
    else:
        raise SystemExit("unknown case " + CASE)
    print("RESULT", envs.step())
    envs.close()


if __name__ == "__main__":
    main()
