"""q_q4_05: module-level `identity = lambda x:x` default target_transform kept by datasets sent to DataLoader workers.
cases: lambda (WSP204), fixed (def identity), zero_workers. usage: python run_case.py CASE MODE"""
import os, subprocess, sys
here = os.path.dirname(os.path.abspath(__file__))
case, mode = sys.argv[1], sys.argv[2]
env = dict(os.environ, Q4_FIXED="1" if case == "fixed" else "0")
script = os.path.join(here, "finetune_like.py")
cmd = ([sys.executable, "-m", "winspawn_lint.spawnrun", "--start-method", "spawn", script, case] if mode == "spawn"
       else [sys.executable, script, case])
p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
out = (p.stdout + p.stderr).splitlines()
key = [l for l in out if "Can't pickle" in l or "Can't get attribute" in l or "Error" in l and not l.startswith(" ")]
print(f"rc={p.returncode} ok={'OK episodes' in p.stdout} error={key[-1:]}")
