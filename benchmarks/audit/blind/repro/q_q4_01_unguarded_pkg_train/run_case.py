"""q_q4_01: unguarded script that calls a package train() which starts DataLoader workers.
cases: unguarded (WSP101), heavy (WSP103: counts weight loads), guarded (safe twin; closed h5py + picklable Compose)
usage: python run_case.py CASE MODE   (MODE = spawn | fork)"""
import os, subprocess, sys, tempfile
here = os.path.dirname(os.path.abspath(__file__))
case, mode = sys.argv[1], sys.argv[2]
script = {"unguarded": "demo_hazard.py", "heavy": "demo_hazard.py", "guarded": "demo_safe.py"}[case]
log = tempfile.mktemp(prefix="q4heavy_")
env = dict(os.environ, Q4_HEAVY_LOG=log)
if mode == "spawn":
    cmd = [sys.executable, "-m", "winspawn_lint.spawnrun", "--start-method", "spawn", os.path.join(here, script)]
else:
    cmd = [sys.executable, os.path.join(here, script)]
p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
out = p.stdout + p.stderr
loads = open(log).read().count("load-weights") if os.path.exists(log) else 0
err = ["RuntimeError: bootstrapping phase"] if "bootstrapping phase" in out else [l for l in out.splitlines() if "Error" in l][-1:]
print(f"rc={p.returncode} weight_loads={loads} result_printed={'result' in p.stdout} first_error={err[:1]}")
