"""Like BulletArm bulletarm/runner.py, batch-ppo tools/wrappers.py, iris envs/multi_process_env.py,
pufferlib's Multiprocessing backend: env (and planner) factories go to multiprocessing.Process as
arguments, pickled with the standard pickler.  SubprocVecEnvCP wraps them in a CloudpickleWrapper as
easy-rl notebooks/common/multiprocessing_env.py, gym(nasium) AsyncVectorEnv, SB3 SubprocVecEnv and
AgileRL's AsyncPettingZooVecEnv do."""
from multiprocessing import Pipe, Process


def worker(remote, parent_remote, env_fn, planner_fn=None):
    parent_remote.close()
    env = env_fn()
    planner = planner_fn(env) if planner_fn is not None else None
    cmd = remote.recv()
    remote.send((cmd, env["name"], planner))
    remote.close()


class MultiRunner(object):
    def __init__(self, env_fns, planner_fns=None):
        planner_fns = planner_fns or [None] * len(env_fns)
        self.remotes, self.worker_remotes = zip(*[Pipe() for _ in env_fns])
        self.processes = [Process(target=worker, args=(wr, r, ef, pf))
                          for wr, r, ef, pf in zip(self.worker_remotes, self.remotes, env_fns, planner_fns)]
        for p in self.processes:
            p.daemon = True
            p.start()
        for r in self.worker_remotes:
            r.close()

    def step(self):
        for r in self.remotes:
            r.send("step")
        return [r.recv() for r in self.remotes]

    def close(self):
        for p in self.processes:
            p.join(10)


class CloudpickleWrapper(object):
    def __init__(self, x):
        self.x = x

    def __getstate__(self):
        import cloudpickle
        return cloudpickle.dumps(self.x)

    def __setstate__(self, ob):
        import pickle
        self.x = pickle.loads(ob)

    def __call__(self, *a):
        return self.x(*a)


class SubprocVecEnvCP(MultiRunner):
    def __init__(self, env_fns):
        super().__init__([CloudpickleWrapper(f) for f in env_fns])
