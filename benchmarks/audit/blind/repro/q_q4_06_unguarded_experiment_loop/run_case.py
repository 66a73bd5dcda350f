"""q_q4_06: unguarded module-level experiment loop whose Experiment.train() (another module) starts DataLoader workers.
cases: unguarded (WSP101), guarded (safe twin; also exercises the parent-only map_location lambda). usage: python run_case.py CASE MODE"""
import os, subprocess, sys
here = os.path.dirname(os.path.abspath(__file__))
case, mode = sys.argv[1], sys.argv[2]
script = os.path.join(here, {"unguarded": "run_hazard.py", "guarded": "run_safe.py"}[case])
cmd = ([sys.executable, "-m", "winspawn_lint.spawnrun", "--start-method", "spawn", script] if mode == "spawn"
       else [sys.executable, script])
p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
out = p.stdout + p.stderr
print(f"rc={p.returncode} ok={'OK steps' in p.stdout} bootstrapping_error={'bootstrapping phase' in out}")
