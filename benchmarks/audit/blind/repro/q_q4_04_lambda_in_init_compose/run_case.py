"""q_q4_04: lambdas built in a notebook Dataset.__init__ (Compose of Lambda) reaching DataLoader workers (WSP204, then WSP206).
Runs the cells the way Jupyter does: executed into a __main__ that has no __file__ (python -c), so a spawned
worker cannot re-import the notebook. usage: python run_case.py CASE MODE"""
import os, subprocess, sys
here = os.path.dirname(os.path.abspath(__file__))
case, mode = sys.argv[1], sys.argv[2]
env = dict(os.environ, Q4_DIR=here, Q4_MODE=mode)
code = f"exec(compile(open({os.path.join(here, 'notebook_cells.py')!r}).read(), '<cell>', 'exec'))"
p = subprocess.run([sys.executable, "-c", code, case], env=env, capture_output=True, text=True, timeout=60)
out = (p.stdout + p.stderr).splitlines()
err = [l for l in out if ("Error" in l or "Can't get attribute" in l) and not l.startswith(" ")]
key = [l for l in out if "Can't get attribute" in l or "Can't pickle" in l]
print(f"rc={p.returncode} ok={'OK batches' in p.stdout} error={(key or err)[-1:]}")
