"""Mimics DistributedES config.py: BasicConfig.__init__ stores lambdas (env_fn, model_fn, action_clip)."""
import functools


class ToyEnv:
    def __init__(self, name):
        self.name = name


class BasicConfig:
    def __init__(self, hidden_size):
        self.env_fn = lambda: ToyEnv(self.task)
        self.hidden_size = hidden_size
        self.num_workers = 2


class WalkerConfig(BasicConfig):
    def __init__(self, hidden_size=16):
        self.task = "Walker"
        self.action_clip = lambda a: max(-1, min(1, a))
        BasicConfig.__init__(self, hidden_size)


def _clip(a, lo, hi):
    return max(lo, min(hi, a))


class SafeWalkerConfig:
    def __init__(self, hidden_size=16):
        self.task = "Walker"
        self.env_fn = functools.partial(ToyEnv, self.task)
        self.action_clip = functools.partial(_clip, lo=-1, hi=1)
        self.hidden_size = hidden_size
        self.num_workers = 2


class EnvFnOnlyConfig(BasicConfig):
    """action_clip fixed (module-level partial); only BasicConfig's env_fn lambda remains."""
    def __init__(self, hidden_size=16):
        self.task = "Walker"
        self.action_clip = functools.partial(_clip, lo=-1, hi=1)
        BasicConfig.__init__(self, hidden_size)
