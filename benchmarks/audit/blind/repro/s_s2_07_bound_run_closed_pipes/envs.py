"""Mimics src/env.py MultipleEnvironments: pipes and emulator envs created in __init__, workers started with
target=self.run (the whole object is pickled for each worker), and the parent closes env_conns[i] right after
starting worker i."""
import ctypes
import torch.multiprocessing as mp


class FakeEmulatorEnv:
    def __init__(self):
        self._buf = ctypes.create_string_buffer(16)
        self._handle = ctypes.pointer(self._buf)     # stands in for the emulator's native handle

    def step(self, a):
        return a + 1

    def reset(self):
        return 0


class MultipleEnvironments:
    def __init__(self, num_envs, with_native_env=False):
        self.agent_conns, self.env_conns = zip(*[mp.Pipe() for _ in range(num_envs)])
        self.envs = [FakeEmulatorEnv() if with_native_env else None for _ in range(num_envs)]
        self.procs = []
        for index in range(num_envs):
            process = mp.Process(target=self.run, args=(index,), daemon=True)
            process.start()
            self.procs.append(process)
            self.env_conns[index].close()

    def run(self, index):
        self.agent_conns[index].close()
        while True:
            request, action = self.env_conns[index].recv()
            if request == "step":
                self.env_conns[index].send(action + 1)
            elif request == "close":
                break


def env_worker(conn, make_env):
    env = make_env()
    while True:
        request, action = conn.recv()
        if request == "step":
            conn.send(env.step(action))
        elif request == "close":
            break


class SafeMultipleEnvironments:
    def __init__(self, num_envs):
        self.agent_conns, self.env_conns = zip(*[mp.Pipe() for _ in range(num_envs)])
        self.procs = []
        for index in range(num_envs):
            p = mp.Process(target=env_worker, args=(self.env_conns[index], FakeEmulatorEnv), daemon=True)
            p.start()
            self.procs.append(p)
            self.env_conns[index].close()
