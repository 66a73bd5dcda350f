"""pytorch-maml-rl maml_rl/samplers/sampler.py + multi_task_sampler.py stand-in."""
import functools
import multiprocessing as mp


class FakeEnv:
    def __init__(self, name):
        self.name = name


def make_env(env_name, env_kwargs={}, seed=None):
    def _make_env():
        return FakeEnv(env_name)
    return _make_env


def _build_env(env_name):
    return FakeEnv(env_name)


def make_env_partial(env_name, env_kwargs={}, seed=None):
    return functools.partial(_build_env, env_name)


class SyncVectorEnv:                       # gym.vector.SyncVectorEnv keeps env_fns
    def __init__(self, env_fns):
        self.env_fns = env_fns
        self.envs = [fn() for fn in env_fns]


class SamplerWorker(mp.Process):
    def __init__(self, index, env_name, batch_size, queue, policy_lock, safe=False):
        super().__init__()
        factory = make_env_partial if safe else make_env
        self.envs = SyncVectorEnv([factory(env_name) for _ in range(batch_size)])
        self.queue = queue
        self.policy_lock = policy_lock       # mp.Lock kept on the Process: fine under spawn
        self.index = index

    def run(self):
        with self.policy_lock:
            self.queue.put((self.index, len(self.envs.envs)))


class MultiTaskSampler:
    def __init__(self, env_name, batch_size, num_workers=1, safe=False):
        self.queue = mp.Queue()
        policy_lock = mp.Lock()
        self.workers = [SamplerWorker(i, env_name, batch_size, self.queue, policy_lock, safe) for i in range(num_workers)]
        for w in self.workers:
            w.daemon = True
            w.start()

    def collect(self):
        return sorted(self.queue.get(timeout=30) for _ in self.workers)
