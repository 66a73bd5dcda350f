"""Cases:
  hazard      local make_env inside main(), functools.partial(make_env, idx) -> MultiprocessVectorEnv (pfrl atari/mujoco examples)
  safe_module module-level make_env(args, seed) + partial (pfrl examples/atlas)
  safe_cloudpickle local thunk returned by get_make_env() -> cloudpickle-wrapping vec env (score_following_game + baselines ShmemVecEnv)
"""
import functools
import sys

from vec_env import MultiprocessVectorEnv, ShmemLikeVecEnv, ToyEnv


def make_env_module(args, seed):
    return ToyEnv(seed)


def get_make_env(seed):
    def _thunk():
        return ToyEnv(seed)
    return _thunk


def main(case, num_envs=2):
    def make_env(idx, test):
        return ToyEnv(idx + (100 if test else 0))

    if case == "hazard":
        env = MultiprocessVectorEnv([functools.partial(make_env, i, False) for i in range(num_envs)])
    elif case == "safe_module":
        env = MultiprocessVectorEnv([functools.partial(make_env_module, None, i) for i in range(num_envs)])
    elif case == "safe_cloudpickle":
        env = ShmemLikeVecEnv([get_make_env(i) for i in range(num_envs)])
    else:
        raise SystemExit("unknown case")
    print("reset ->", env.reset())


if __name__ == "__main__":
    main(sys.argv[1])
