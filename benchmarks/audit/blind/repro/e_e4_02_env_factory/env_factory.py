"""Like BulletArm bulletarm/env_factory.py + planners/planner_factory.py and batch-ppo
scripts/utility.py (define_batch_env)."""
import copy
import functools

from runner import MultiRunner, SubprocVecEnvCP


def make_block_env(config):
    return {"name": "block_stacking", "seed": config.get("seed", 0)}


class Planner(object):
    def __init__(self, env, config):
        self.env_name = env["name"]

    def __repr__(self):
        return "Planner(%s)" % self.env_name


def getPlannerFn(planner_config):
    return lambda env: Planner(env, planner_config)          # BulletArm planner_factory.py:15 (WSP201)


def module_planner(env, planner_config):
    return Planner(env, planner_config)


def createMultiprocessEnvs(num_processes, env_config, planner_lambda=True):
    env_configs = [dict(copy.deepcopy(env_config), seed=i) for i in range(num_processes)]

    def getEnv(c):
        def _thunk():                                          # BulletArm env_factory.py:98 (WSP202)
            return make_block_env(c)
        return _thunk
    envs = [getEnv(env_configs[i]) for i in range(num_processes)]
    if planner_lambda:
        planners = [getPlannerFn({}) for _ in range(num_processes)]
    else:
        planners = [functools.partial(module_planner, planner_config={}) for _ in range(num_processes)]
    return MultiRunner(envs, planners)


def createMultiprocessEnvsPartial(num_processes, env_config, planner_lambda=False):
    envs = [functools.partial(make_block_env, dict(env_config, seed=i)) for i in range(num_processes)]
    if planner_lambda:
        planners = [getPlannerFn({}) for _ in range(num_processes)]
    else:
        planners = [functools.partial(module_planner, planner_config={}) for _ in range(num_processes)]
    return MultiRunner(envs, planners)


def define_batch_env(constructor, num_agents, env_processes=True):
    if env_processes:
        return MultiRunner([constructor for _ in range(num_agents)])
    return [constructor() for _ in range(num_agents)]


def make_vect_envs(env_name, num_envs):
    def make_env():                                            # AgileRL utils.py:260 (safe: cloudpickle)
        return {"name": env_name}
    return SubprocVecEnvCP([make_env for _ in range(num_envs)])
