"""Shape of easy-rl notebooks/A2C.ipynb cells 5 and 7: a notebook-defined factory make_envs returns a
local _thunk; the thunks go to SubprocVecEnv from common/multiprocessing_env.py, which wraps each in a
CloudpickleWrapper (cloudpickle pickles notebook functions by value).  The cells run in an IPython
InteractiveShell, as a Jupyter kernel runs them (its __main__ has no __file__, so spawned children get a
bare __main__).  Cases: notebook_cloudpickle (safe), notebook_plain (twin: the same thunks given to a
runner that pickles with the standard pickler: fails under spawn, not labelled)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "e_e4_02_env_factory"))

CELL5 = '''
def make_envs(env_name):
    def _thunk():
        return {"name": env_name}
    return _thunk
'''
CELL7_CP = '''
from runner import SubprocVecEnvCP
envs = [make_envs("CartPole-v0") for i in range(2)]
envs = SubprocVecEnvCP(envs)
print("RESULT", envs.step(), flush=True)
envs.close()
'''
CELL7_PLAIN = CELL7_CP.replace("SubprocVecEnvCP", "MultiRunner")

if __name__ == "__main__":
    case = sys.argv[1] if len(sys.argv) > 1 else "notebook_cloudpickle"
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    for cell in (CELL5, CELL7_CP if case == "notebook_cloudpickle" else CELL7_PLAIN):
        r = shell.run_cell(cell)
        if not r.success:
            print("CELL FAILED", repr(r.error_in_exec), flush=True)
            break
