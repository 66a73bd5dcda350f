"""AudioNotebooks shape: a notebook cell defines `def job(fn)` and maps it with
multiprocessing.Pool().map.  A notebook's __main__ has no file, so a spawned child cannot
re-create `job` ("Can't get attribute 'job' on <module '__main__' (built-in)>").
The cells are run with `python -c` (a __main__ without __file__, like a kernel).
Cases: hazard (job defined in the 'notebook'), safe (job imported from a module file),
parent_only (a notebook function used only in the parent, as replace_extension: safe).
Argument 2 (optional): start method, default spawn; the fork column passes 'fork'."""
import os
import subprocess
import sys
import tempfile

case = sys.argv[1]
method = sys.argv[2] if len(sys.argv) > 2 else "spawn"
tmp = tempfile.mkdtemp()
with open(os.path.join(tmp, "nbutils.py"), "w") as f:
    f.write("def job(fn):\n    return fn.upper()\n")

cells = {
    "hazard": "def job(fn):\n    return fn.upper()\np = Pool(2)\nprint(p.map(job, files))\np.close()\n",
    "safe": "from nbutils import job\np = Pool(2)\nprint(p.map(job, files))\np.close()\n",
    "parent_only": ("def replace_extension(fn, ext):\n    return fn.rsplit('.', 1)[0] + '.' + ext\n"
                    "files = [replace_extension(fn, 'json') for fn in files]\n"
                    "from nbutils import job\np = Pool(2)\nprint(p.map(job, files))\np.close()\n"),
}[case]
program = (f"import multiprocessing as mp, sys\nsys.path.insert(0, {tmp!r})\n"
           f"mp.set_start_method({method!r})\nfrom multiprocessing import Pool\n"
           "files = ['a.mp3', 'b.mp3']\n" + cells + f"print('OK', {case!r})\n")
try:
    r = subprocess.run([sys.executable, "-c", program], text=True, capture_output=True, timeout=20)
    out, ok = r.stdout + r.stderr, f"OK {case}" in r.stdout
except subprocess.TimeoutExpired as e:      # Pool.map waits forever for the lost tasks
    err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
    out, ok = "HANG (Pool.map never returns) after:\n" + err, False
print(out[-700:])
if "HANG" in out:
    print("HANG: Pool.map never returned")
sys.exit(0 if ok else 1)
