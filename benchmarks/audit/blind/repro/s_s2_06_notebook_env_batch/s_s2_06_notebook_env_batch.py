"""Notebook emulation: a Jupyter kernel's __main__ has no __file__, so a spawned child cannot re-import it and
anything defined in the notebook cannot be unpickled there ("Can't get attribute ... on <module '__main__'>").
Cases: safe_module_thunk (cell calls nature_dqn_env from a .py module, factory = module-level class: Practical_RL
a2c-optional.ipynb cell 4), hazard_notebook_factory (the same call with a factory class defined in the notebook)."""
import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import __main__
CASE = sys.argv[1]
del __main__.__file__            # as in a Jupyter kernel

# ---- "cells" ----
from atari_wrappers import nature_dqn_env, Env


class NotebookThunk:                # defined in a notebook cell
    def __init__(self, i, env_id):
        self.i = i

    def __call__(self):
        return Env(self.i)


if CASE == "safe_module_thunk":
    env = nature_dqn_env("SpaceInvadersNoFrameskip-v4", nenvs=4)
elif CASE == "hazard_notebook_factory":
    env = nature_dqn_env("SpaceInvadersNoFrameskip-v4", nenvs=4, factory=NotebookThunk)
else:
    raise SystemExit("unknown case")
import time
time.sleep(1.0)
alive = [p.is_alive() for p in env._processes]
print("alive", alive)
if not all(alive):
    raise SystemExit("worker died")
print(env.step([1, 2, 3, 4]))
env.close()
print("OK", CASE)
