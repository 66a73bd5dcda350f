"""Runs every c_c1 repro case under spawn (winspawn_lint.spawnrun) and fork (plain python) and prints
the RESULTS-c1.md table.  Outcome = last meaningful output line (ok lines start with 'sum'/'builds'/
'log folders'), or the exception line."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = [
    ("c_c1_01_module_lambda_default/train.py", ["hazard", "safe_def", "parent_lambda"]),
    ("c_c1_02_h5py_copied_handle/train.py", ["hazard", "safe_lazy", "parent_only"]),
    ("c_c1_03_unguarded_script.py", ["hazard", "build_only", "guarded"]),
    ("c_c1_04_import_time_logger/train.py", ["hazard", "guarded"]),
    ("c_c1_05_compose_lambda_in_function/train.py", ["hazard", "safe", "validation"]),
    ("c_c1_06_guard_lambda_partial/main_clevr.py", ["repo", "lambda", "guard_def", "safe"]),
    ("c_c1_07_notebook_def/notebook.py", ["hazard", "no_workers", "tensordataset"]),
]


def outcome(cmd, cwd):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "timeout"
    text = (p.stdout + p.stderr).splitlines()
    errs = [l for l in text if ("Error" in l or "error" in l) and not l.startswith(" ")]
    key = [l for l in errs if "Can't" in l or "cannot" in l or "bootstrapping" in l]
    if p.returncode != 0:
        boot = any("bootstrapping phase" in l for l in text)
        msg = (key or errs or text or ["?"])[0]
        if boot:
            msg = "worker: RuntimeError (bootstrapping phase) -> " + (errs[-1] if errs else "")
        elif "Can't get attribute" in " ".join(text):
            msg = "worker: " + [l for l in text if "Can't get attribute" in l][0].strip()
        return "FAIL rc=%d: %s" % (p.returncode, msg.strip())
    ok = [l for l in p.stdout.splitlines() if l.startswith(("sum", "builds", "log folders"))]
    return "ok: " + "; ".join(ok)


def main():
    print("| script | case | spawn | fork |")
    print("|---|---|---|---|")
    for script, cases in CASES:
        path = os.path.join(HERE, script)
        cwd = os.path.dirname(path)
        for case in cases:
            extra = [tempfile.mkdtemp()] if "import_time_logger" in script else []
            spawn = outcome([sys.executable, "-m", "winspawn_lint.spawnrun", "--start-method", "spawn",
                             path, case] + extra, cwd)
            extra = [tempfile.mkdtemp()] if extra else []
            fork = outcome([sys.executable, path, case] + extra, cwd)
            print("| `%s` | %s | %s | %s |" % (script, case, spawn.replace("|", "/"), fork.replace("|", "/")))


if __name__ == "__main__":
    main()
