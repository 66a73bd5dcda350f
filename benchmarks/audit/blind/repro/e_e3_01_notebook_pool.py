"""e3 shape 01: a function defined in a notebook cell handed to multiprocessing.Pool / a Pool-based
parallel_map (qutip-notebooks temporal-photon-scattering cells 10/14/20, parallel-JC-steadystate
cell 10, docs/guide/Parallel.ipynb cell 7; qutip 4's parfor/parallel_map are multiprocessing.Pool).

cases:
  notebook_pool      notebook def -> Pool.starmap                     (hazard, WSP206)
  notebook_parfor    notebook def -> Pool-based parfor helper (module) (hazard, WSP206)
  lambda_in_worker   lambda built inside the worker by a module function the worker calls (safe)
  module_function    function imported from a .py module -> Pool      (safe)
"""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e_e3_nbshell import run_cells

SETUP = "from multiprocessing import Pool\nimport numpy as np\nworker_count = 2\n"

CASES = {
    "notebook_pool": [SETUP, """
gamma = 1.0
def scattering_probability_multiprocess(pulse_area, n):
    return float(np.sin(pulse_area) ** 2 * gamma) + n
pool = Pool(worker_count)
out = pool.starmap(scattering_probability_multiprocess, [(a, 1) for a in np.linspace(0, 1, 4)])
pool.close()
print(out)
"""],
    "notebook_parfor": [SETUP + "from e_e3_01_parallel import parfor\n", """
def probss(wl, E=1.0):
    return wl * E, wl ** 2
count1, count2 = parfor(probss, [0.1, 0.2, 0.3], E=2.0)
print(count1, count2)
"""],
    "lambda_in_worker": [SETUP + "from e_e3_01_parallel import scatter_with_lambda\n", """
pool = Pool(worker_count)
out = pool.starmap(scatter_with_lambda, [(a, 1) for a in np.linspace(0, 1, 4)])
pool.close()
print(out)
"""],
    "module_function": [SETUP + "from e_e3_01_parallel import scatter_with_lambda as f\n", """
with Pool(worker_count) as pool:
    print(pool.starmap(f, [(0.5, 2), (0.7, 1)]))
"""],
}

if __name__ == "__main__":
    sys.exit(run_cells(CASES[sys.argv[1]]))
