"""Run every s_s3 reproduction case under emulated spawn and under fork; print a markdown table."""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = [
    ("s_s3_01_local_collate_factory/train.py", ["local_collate", "local_init", "factory_collate", "safe_module_level", "safe_callable_class"]),
    ("s_s3_02_lambda_worker_init.py", ["lambda_init", "safe_val_loader", "safe_jitter_in_worker", "safe_named_init"]),
    ("s_s3_03_dataset_default_lambda/train.py", ["default_lambda", "safe_given_transform", "safe_parent_lambda"]),
    ("s_s3_04_unguarded_loader_loop.py", ["unguarded_for", "unguarded_while", "safe_zero_workers", "safe_guarded"]),
    ("s_s3_05_unguarded_pool_script.py", ["unguarded_imap", "unguarded_apply_async", "safe_guarded"]),
]


def outcome(cmd, cwd, timeout=45):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = (e.stderr or b"").decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
        n = out.count("bootstrapping phase")
        return "hang, killed after %ds (%d bootstrapping RuntimeErrors)" % (timeout, n)
    text = p.stdout + p.stderr
    if p.returncode == 0 and re.search(r"^OK ", p.stdout, re.M) or "OK " in p.stdout:
        return "OK"
    m = re.findall(r"(AttributeError: Can't pickle[^\n]*|TypeError: cannot pickle[^\n]*)", text)
    if m:
        return "fails: " + m[0]
    if "bootstrapping phase" in text:
        return "fails: RuntimeError bootstrapping phase (x%d)" % text.count("bootstrapping phase")
    return "fails rc=%d: %s" % (p.returncode, text.strip().splitlines()[-1] if text.strip() else "")


print("| script | case | spawn (winspawn_lint.spawnrun) | fork (plain python) |")
print("|---|---|---|---|")
for script, cases in CASES:
    path = os.path.join(HERE, script)
    cwd = os.path.dirname(path)
    for c in cases:
        s = outcome([sys.executable, "-m", "winspawn_lint.spawnrun", "--start-method", "spawn", os.path.basename(path), c], cwd)
        f = outcome([sys.executable, os.path.basename(path), c], cwd)
        print("| %s | %s | %s | %s |" % (script, c, s, f), flush=True)
