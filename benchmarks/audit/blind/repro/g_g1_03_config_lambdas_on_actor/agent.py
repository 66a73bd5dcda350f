"""Mimics DeepRL deep_rl/agent/BaseAgent.py (BaseActor(mp.Process) keeps self.config; DQNActor starts itself
when config.async_actor) and deep_rl/component/replay.py (ReplayWrapper(mp.Process) keeps only a class and a dict)."""
import multiprocessing as mp


class Config:
    def __init__(self):
        self.async_actor = True
        self.task_fn = None


class UniformReplay:
    def __init__(self, memory_size):
        self.memory_size = memory_size


class ReplayWrapper(mp.Process):
    def __init__(self, replay_cls, replay_kwargs, use_async=True):
        mp.Process.__init__(self)
        self.replay_cls = replay_cls
        self.replay_kwargs = replay_kwargs
        if use_async:
            self.pipe, self.worker_pipe = mp.Pipe()
            self.start()

    def run(self):
        replay = self.replay_cls(**self.replay_kwargs)
        self.worker_pipe.send(replay.memory_size)

    def size(self):
        out = self.pipe.recv()
        self.join()
        return out


class BaseActor(mp.Process):
    def __init__(self, config):
        mp.Process.__init__(self)
        self.config = config
        self._pipe, self._worker_pipe = mp.Pipe()
        if not config.async_actor:
            self.start = lambda: None
            self._task = config.task_fn()

    def run(self):
        task = self.config.task_fn()
        self._worker_pipe.send(task)


class DQNActor(BaseActor):
    def __init__(self, config):
        BaseActor.__init__(self, config)
        self.start()

    def result(self):
        if not self.config.async_actor:
            return self._task
        out = self._pipe.recv()
        self.join()
        return out
