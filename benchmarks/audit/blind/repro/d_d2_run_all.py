"""Run every d2 repro case under spawn (winspawn_lint.spawnrun) and fork (plain python); print a markdown table."""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = [
    ("d_d2_01_unguarded_loader_cross_module/run.py", ["unguarded", "unguarded_method", "guarded", "workers0",
                                                      "stored_function", "lazy_lmdb", "model_lambda"]),
    ("d_d2_02_import_time_heavy/run.py", ["module_config", "script_level", "under_guard"]),
    ("d_d2_03_pool_scripts.py", ["unguarded", "guarded_partial", "initializer_global", "explicit_args",
                                 "parent_lambda", "start_method_guarded"]),
    ("d_d2_04_args_global_pool.py", ["guard_assigned", "global_in_main", "partial_args"]),
    ("d_d2_05_pool_def_under_guard/run.py", ["def_under_guard", "def_module_level", "staticmethod_partial"]),
]


def outcome(cmd, cwd):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=40)
        out, rc, to = p.stdout + p.stderr, p.returncode, False
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        out += (e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        rc, to = None, True
    notes = []
    if "bootstrapping phase" in out:
        notes.append("RuntimeError bootstrapping phase (x%d)" % out.count("bootstrapping phase"))
    m = re.search(r"(AttributeError: Can't get attribute '[^']+' on <module '__mp_main__')", out)
    if m:
        notes.append(m.group(1) + ">")
    m = re.search(r"NameError: name '\w+' is not defined", out)
    if m:
        notes.append(m.group(0))
    if "exited unexpectedly" in out:
        notes.append("DataLoader worker exited unexpectedly")
    ok = [l for l in out.splitlines() if l.startswith("OK") or l.startswith("predictor loads")]
    loads = re.search(r"loads=(\d+)", out)
    if to:
        head = "timeout (killed after 40 s)"
    elif rc == 0:
        head = "ok"
    else:
        head = f"fails rc={rc}"
    if rc == 0 and loads:
        notes.append(f"heavy loads={loads.group(1)}")
    for l in ok:
        if l.startswith("predictor loads"):
            notes.append(l)
    return head + (": " + "; ".join(notes) if notes else "")


rows = []
for script, cases in CASES:
    path = os.path.join(HERE, script)
    cwd = os.path.dirname(path)
    for c in cases:
        sp = outcome([sys.executable, "-m", "winspawn_lint.spawnrun", "--start-method", "spawn", path, c], cwd)
        fk = outcome([sys.executable, path, c], cwd)
        rows.append((script, c, sp, fk))
        print(f"| {script} | {c} | {sp} | {fk} |", flush=True)
for f in ("d_d2_02_import_time_heavy/loads.log", "d_d2_05_pool_def_under_guard/loads.log"):
    try:
        os.remove(os.path.join(HERE, f))
    except FileNotFoundError:
        pass
