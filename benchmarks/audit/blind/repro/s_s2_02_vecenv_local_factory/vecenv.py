"""Mimics chainerrl/envs/multiprocess_vector_env.py: env_fns passed as plain Process args (no cloudpickle)."""
from multiprocessing import Pipe, Process


def worker(remote, env_fn):             # module-level target: picklable
    env = env_fn()
    while True:
        cmd, data = remote.recv()
        if cmd == "step":
            remote.send(env.step(data))
        elif cmd == "close":
            remote.close()
            break


class MultiprocessVectorEnv:
    def __init__(self, env_fns):
        self.remotes, self.work_remotes = zip(*[Pipe() for _ in range(len(env_fns))])
        self.ps = [Process(target=worker, args=(wr, fn)) for wr, fn in zip(self.work_remotes, env_fns)]
        for p in self.ps:
            p.start()

    def step(self, actions):
        for r, a in zip(self.remotes, actions):
            r.send(("step", a))
        return [r.recv() for r in self.remotes]

    def close(self):
        for r in self.remotes:
            r.send(("close", None))
        for p in self.ps:
            p.join()
