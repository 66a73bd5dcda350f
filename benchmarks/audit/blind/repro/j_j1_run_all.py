"""Run every j_j1 reproduction case under spawn (winspawn_lint.spawnrun) and fork (plain python);
print a markdown table of outcomes."""
import os, subprocess, sys
HERE = os.path.dirname(os.path.abspath(__file__))
CASES = [
 ("j_j1_01_local_dataset_lambda_tf.py", ["local_class", "compose_lambda", "both", "safe", "zero_workers", "lambda_in_getitem", "parent_lambda"]),
 ("j_j1_02_unguarded_loader/train.py", ["unguarded", "unguarded_iter", "heavy", "guarded", "no_workers", "built_not_iterated", "start_method_in_fn"]),
 ("j_j1_03_lmdb_env_lazy.py", ["lazy", "eager"]),
 ("j_j1_04_local_aug_fn/train.py", ["zero_workers", "workers", "named"]),
 ("j_j1_05_h5py_in_init.py", ["threads2", "threads0", "lazy", "local_model"]),
]

def outcome(cmd, cwd):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "timeout"
    out = p.stdout + p.stderr
    heavy = out.count("HEAVY")
    lines = [l for l in out.splitlines() if l.startswith("OK")]
    if p.returncode == 0 and lines:
        res = "OK"
    else:
        errs = [l.strip() for l in out.splitlines() if ("Error" in l or "error" in l) and not l.strip().startswith("File")]
        if any("bootstrapping" in l for l in out.splitlines()):
            res = "RuntimeError: bootstrapping phase (rc=%d)" % p.returncode
        else:
            res = (errs[-1] if errs else "rc=%d" % p.returncode)[:110]
    if heavy:
        res += " [HEAVY load x%d]" % heavy
    return res

print("| script | case | spawn | fork |")
print("|---|---|---|---|")
for script, cases in CASES:
    cwd = os.path.join(HERE, os.path.dirname(script))
    base = os.path.basename(script)
    for c in cases:
        s = outcome([sys.executable, "-m", "winspawn_lint.spawnrun", "--start-method", "spawn", base, c], cwd)
        f = outcome([sys.executable, base, c], cwd)
        print(f"| {script} | {c} | {s} | {f} |", flush=True)
