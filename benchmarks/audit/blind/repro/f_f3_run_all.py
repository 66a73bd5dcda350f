"""Run every f_f3 repro case under emulated spawn (winspawn_lint.spawnrun) and under fork
(plain python on Linux); print a markdown table of the outcomes."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SPAWN = [sys.executable, "-m", "winspawn_lint.spawnrun", "--start-method", "spawn"]
PLAIN = [sys.executable]

RUNS = [  # (label, cwd, argv-after-interpreter, cases)
    ("f_f3_01_notebook_defs/run.py", "f_f3_01_notebook_defs", ["run.py"],
     ["pool_fn", "module_fn", "parent_lambda", "mx_transform", "mx_workers0", "mx_dataset_class",
      "mx_batchify", "imported_module_class", "imported_module_local_class", "local_class_parent"]),
    ("f_f3_02_guard_globals (-m ocr.line_recognition)", "f_f3_02_guard_globals", ["-m", "ocr.line_recognition"],
     ["guard_global_aug", "guard_global_test", "partial_args", "workers0"]),
    ("f_f3_03_default_lambda_attr/run.py", "f_f3_03_default_lambda_attr", ["run.py"],
     ["default_lambda", "workers0", "module_fn_default", "tv_lambda_module_fn",
      "compose_lambda_workers0", "compose_lambda_workers"]),
    ("f_f3_04_unguarded_pool.py", ".", ["f_f3_04_unguarded_pool.py"], ["unguarded", "guarded", "parent_lambda"]),
    ("f_f3_05_backed_h5/main.py", "f_f3_05_backed_h5", ["main.py"], ["backed_h5py", "lazy_open", "numpy_dataset"]),
]

KEYS = ("Can't", "NameError", "bootstrapping phase", "PicklingError", "TypeError:", "RuntimeError", "Error")


def outcome(cmd, cwd):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=60)
        out, code = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") + (e.stderr or b"").decode(errors="replace")
        code = "timeout(60s)"
    lines = [l.strip() for l in out.splitlines() if "File " not in l and "Warning" not in l]
    inner_ok = any(l.startswith("RESULT") or (": OK (exit 0)" in l) for l in lines)
    inner_fail = any(": FAIL (" in l for l in lines)
    if code == 0 and inner_ok and not inner_fail:
        return "OK"
    err = next((l for k in KEYS for l in lines if k in l), "")
    if "bootstrapping phase" in out:
        err = f"RuntimeError: ... bootstrapping phase (x{out.count('bootstrapping phase')} in re-spawned workers)"
    if inner_fail:   # f_f3_01: the emulated kernel (python -c) failed, the wrapper exited 0
        code = "kernel exit " + next(l for l in lines if ": FAIL (" in l).split("(exit ")[1].split(")")[0]
        err = err.split(") ", 1)[1] if ") " in err else err
    return f"FAIL ({code}): {err[:150]}".replace("|", "/")


if __name__ == "__main__":
    print("| script | case | spawn (spawnrun) | fork (plain python) |")
    print("|---|---|---|---|")
    for label, cwd, argv, cases in RUNS:
        for c in cases:
            s = outcome(SPAWN + argv + [c], os.path.join(HERE, cwd))
            f = outcome(PLAIN + argv + [c], os.path.join(HERE, cwd))
            print(f"| {label} | {c} | {s} | {f} |", flush=True)
