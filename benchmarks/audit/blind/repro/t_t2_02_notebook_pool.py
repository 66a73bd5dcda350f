# mimics notebooks/dataset_analysis/*.ipynb of mozilla/TTS: a function defined in a notebook cell sent to
# multiprocessing.Pool.imap. A notebook's __main__ has no file, so spawned workers cannot re-create the function.
# The notebook code runs in a child interpreter via `python -c` (no __file__), like a Jupyter kernel.
import multiprocessing as mp
import subprocess
import sys

NB_HAZARD = '''
import multiprocessing as mp
mp.set_start_method(%r, force=True)
from multiprocessing import Pool
def load_item(item):
    return item * 2
items = list(range(8))
NUM_PROC = 8
if NUM_PROC == 1:
    data = [load_item(m) for m in items]
else:
    with Pool(2) as p:
        data = list(p.imap(load_item, items))
print("OK", data[:3])
'''

NB_SAFE = '''
import multiprocessing as mp
mp.set_start_method(%r, force=True)
from multiprocessing import Pool
import operator, functools
items = list(range(8))
with Pool(2) as p:   # module-level (importable) function: fine under spawn
    data = list(p.imap(functools.partial(operator.mul, 2), items))
print("OK", data[:3])
'''

NB_SEQ = '''
def load_item(item):
    return item * 2
items = list(range(8))
NUM_PROC = 1
if NUM_PROC == 1:
    data = [load_item(m) for m in items]
print("OK", data[:3])
'''

if __name__ == "__main__":
    case = sys.argv[1]
    method = mp.get_start_method()
    code = {"hazard": NB_HAZARD % method, "safe": NB_SAFE % method, "num_proc_1": NB_SEQ}[case]
    r = subprocess.run([sys.executable, "-c", code], text=True, capture_output=True, timeout=40)
    out = (r.stdout + r.stderr).strip().splitlines()
    print(method, "rc", r.returncode, out[-1] if out else "")
