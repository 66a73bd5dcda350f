"""Mimics Practical_RL week06 env_batch.ParallelEnvBatch: Process(target=worker, args=(..., make_env))."""
from multiprocessing import Pipe, Process


def worker(parent_connection, worker_connection, make_env_function):
    parent_connection.close()
    env = make_env_function()
    while True:
        cmd, a = worker_connection.recv()
        if cmd == "step":
            worker_connection.send(env.step(a))
        elif cmd == "close":
            worker_connection.close()
            break


class ParallelEnvBatch:
    def __init__(self, make_env):
        self._parents, self._workers = zip(*[Pipe() for _ in make_env])
        self._processes = [Process(target=worker, args=(p, w, fn), daemon=True)
                           for p, w, fn in zip(self._parents, self._workers, make_env)]
        for p in self._processes:
            p.start()
        for c in self._workers:
            c.close()

    def step(self, actions):
        for c, a in zip(self._parents, actions):
            c.send(("step", a))
        return [c.recv() for c in self._parents]

    def close(self):
        for c in self._parents:
            c.send(("close", None))
        for p in self._processes:
            p.join()
