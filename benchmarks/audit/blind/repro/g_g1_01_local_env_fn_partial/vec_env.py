"""Mimics pfrl/envs/multiprocess_vector_env.py: one Process per env_fn, env_fn sent as a Process arg
(standard pickler), and a baselines-style ShmemVecEnv/SubprocVecEnv that wraps env_fns in a cloudpickle
wrapper."""
import multiprocessing as mp
import cloudpickle


class ToyEnv:
    def __init__(self, seed):
        self.seed = seed

    def reset(self):
        return float(self.seed)


def worker(remote, env_fn):
    env = env_fn()
    remote.send(env.reset())
    remote.close()


class MultiprocessVectorEnv:
    def __init__(self, env_fns):
        self.remotes, self.work_remotes = zip(*[mp.Pipe() for _ in env_fns])
        self.ps = [mp.Process(target=worker, args=(wr, fn)) for wr, fn in zip(self.work_remotes, env_fns)]
        for p in self.ps:
            p.start()

    def reset(self):
        out = [r.recv() for r in self.remotes]
        for p in self.ps:
            p.join()
        return out


class CloudpickleWrapper:
    def __init__(self, x):
        self.x = x

    def __getstate__(self):
        return cloudpickle.dumps(self.x)

    def __setstate__(self, ob):
        import pickle
        self.x = pickle.loads(ob)


def _cp_worker(remote, wrapped):
    worker(remote, wrapped.x)


class ShmemLikeVecEnv(MultiprocessVectorEnv):
    def __init__(self, env_fns):
        self.remotes, self.work_remotes = zip(*[mp.Pipe() for _ in env_fns])
        self.ps = [mp.Process(target=_cp_worker, args=(wr, CloudpickleWrapper(fn)))
                   for wr, fn in zip(self.work_remotes, env_fns)]
        for p in self.ps:
            p.start()
