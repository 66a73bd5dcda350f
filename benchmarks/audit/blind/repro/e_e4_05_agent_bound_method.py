"""Shape of Deep-Reinforcement-Learning-Algorithms-with-PyTorch agents/actor_critic_agents/A3C.py and
utilities/Parallel_Experience_Generator.py: a torch.multiprocessing Process whose target is a bound
method of the agent (the agent keeps a logging.Logger with a FileHandler, a multiprocessing Lock, a
shared nn.Module and optimizer), Process-subclass workers, and Pool.map(self) of a module-level
callable class.  Issue #44 (can't pickle _thread.RLock) was the Logger on Python 3.6; since Python 3.7
a Logger pickles by name.
Cases: agent_bound_method (safe on 3.7+), pool_map_self (safe), handler_attr (twin that keeps the
FileHandler itself as attribute: fails, not labelled)."""
import logging
import os
import sys
import tempfile

import torch
from torch import multiprocessing


def setup_logger(filename):
    logger = logging.getLogger(__name__)
    logger.setLevel(logging.INFO)
    handler = logging.FileHandler(filename)
    logger.addHandler(handler)
    return logger, handler


class Agent(object):
    def __init__(self, keep_handler=False):
        self.logger, handler = setup_logger(os.path.join(tempfile.gettempdir(), "e4_05_training.log"))
        if keep_handler:
            self.handler = handler
        self.net = torch.nn.Linear(4, 2)
        self.opt = torch.optim.Adam(self.net.parameters())
        self.environment = {"name": "CartPole"}

    def update_shared_model(self, queue):
        with self.optimizer_lock:
            queue.put(("updated", sum(p.numel() for p in self.net.parameters())))

    def run(self):
        queue = multiprocessing.Queue()
        self.optimizer_lock = multiprocessing.Lock()
        self.net.share_memory()
        p = multiprocessing.Process(target=self.update_shared_model, args=(queue,))
        p.start()
        print("RESULT", queue.get(timeout=30), flush=True)
        p.join()


class ExperienceGenerator(object):
    def __init__(self, environment, policy):
        self.environment = environment
        self.policy = policy

    def __call__(self, n):
        return (n, self.environment["name"], self.policy.out_features)

    def play_n_episodes(self, n):
        with multiprocessing.Pool(processes=n) as pool:
            return pool.map(self, range(n))


if __name__ == "__main__":
    case = sys.argv[1] if len(sys.argv) > 1 else "agent_bound_method"
    if case == "agent_bound_method":
        Agent().run()
    elif case == "handler_attr":
        Agent(keep_handler=True).run()
    elif case == "pool_map_self":
        print("RESULT", ExperienceGenerator({"name": "MountainCar"}, torch.nn.Linear(2, 1)).play_n_episodes(2))
