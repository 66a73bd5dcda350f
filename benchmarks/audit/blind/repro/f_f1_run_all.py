"""Run every f_f1 reproduction case under emulated spawn and under fork; print a markdown table."""
import os, re, subprocess, sys
HERE = os.path.dirname(os.path.abspath(__file__))
CASES = [
    ("f_f1_01_settings_parsed_under_guard.py", None, ["hazard", "safe"]),
    ("train.py", "f_f1_02_unguarded_trainer_run", ["hazard", "guarded", "heavy_only"]),
    ("f_f1_03_lambda_stored_by_method.py", None, ["hazard", "first_only", "bound_collate"]),
    ("f_f1_04_local_collate.py", None, ["hazard", "module_level", "val_workers0"]),
    ("f_f1_05_pool_globals_under_guard.py", None, ["hazard", "n0", "safe"]),
    ("f_f1_06_joblib_main_functions.py", None, ["loky_unguarded", "mp_pool_lambda"]),
    ("f_f1_07_notebook_pool_job.py", None, ["hazard", "safe", "parent_only"]),
]


def summarize(out, rc, case):
    builds = out.count("BUILD DATA")
    body = out.count("module body runs")
    errs = [l.strip() for l in out.splitlines()
            if re.match(r"^(\w+\.)*\w*(Error|Exception)\b.*:", l.strip()) or l.startswith("HANG")]
    key = None
    for pat in ("HANG", "Can't get attribute", "Can't pickle", "bootstrapping", "AttributeError", "RuntimeError", "PicklingError"):
        for e in errs + out.splitlines():
            if pat in e:
                key = e.strip()
                break
        if key:
            break
    ok = f"OK {case}" in out
    s = "OK" if ok and rc == 0 else f"FAIL (rc={rc})"
    if key and not ok:
        s += ": " + key[:150]
    if builds:
        s += f"; get_data ran {builds}x"
    if body > 1:
        s += f"; module body ran {body}x"
    return s


rows = []
for script, folder, cases in CASES:
    cwd = os.path.join(HERE, folder) if folder else HERE
    for case in cases:
        res = []
        for mode in ("spawn", "fork"):
            if script.startswith("f_f1_07"):
                cmd = [sys.executable, script, case, mode]
            elif mode == "spawn":
                cmd = [sys.executable, "-m", "winspawn_lint.spawnrun", "--start-method", "spawn", script, case]
            else:
                cmd = [sys.executable, script, case]
            try:
                p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=60)
                res.append(summarize(p.stdout + p.stderr, p.returncode, case))
            except subprocess.TimeoutExpired:
                res.append("TIMEOUT (60 s)")
        rows.append((f"{folder + '/' if folder else ''}{script}", case, *res))

print("| script | case | spawn | fork |")
print("|---|---|---|---|")
for r in rows:
    print("| " + " | ".join(x.replace("|", "/") for x in r) + " |")
