"""Like chainerrl-visualizer examples/*/main.py.  Cases:
 unguarded      - module-level agent.load + launch_visualizer (WSP103 + WSP101, hazard)
 lambda_explorer- guarded; explorer keeps random_action_func = lambda, explorer kept by the agent (WSP204)
 local_render   - guarded; a gym-like env gets a local render function in launcher (WSP204)
 guarded_phi    - guarded; agent keeps module-level phi, plain env (safe)"""
import sys

import numpy as np

from launcher import GymLikeEnv, launch_visualizer

CASE = sys.argv[1] if len(sys.argv) > 1 else "unguarded"


def phi(x):
    return np.float32(x) / 255


class PlainEnv(object):
    def render(self):
        return "frame"


class Explorer(object):
    def __init__(self, random_action_func):
        self.random_action_func = random_action_func


class Agent(object):
    def __init__(self, phi, explorer=None):
        self.phi = phi
        self.explorer = explorer

    def load(self, path):
        print("LOADING", path, __name__, flush=True)
        self.w = np.ones(4)

    def act(self, x):
        return float(self.phi(x))


action_size = 4
random_action = lambda: np.random.randint(action_size)      # module-level lambda, as seaquest main.py:49


def build(case):
    explorer = Explorer(random_action) if case == "lambda_explorer" else None
    env = GymLikeEnv() if case == "local_render" else PlainEnv()
    agent = Agent(phi, explorer)
    agent.load("parameters")
    return agent, env


if CASE == "unguarded":
    agent, env = build(CASE)
    launch_visualizer(agent, env)
elif __name__ == "__main__":
    agent, env = build(CASE)
    launch_visualizer(agent, env)
