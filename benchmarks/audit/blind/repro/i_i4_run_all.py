"""Runs every i4 reproduction case under the spawn emulator and under plain python (fork on Linux) and prints
a markdown table.  Usage: python i_i4_run_all.py"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = [
    ("i_i4_01_ocr_transforms", "train.py", ["local_def", "lambda", "label_local_def", "safe", "workers0"]),
    ("i_i4_02_unguarded_fit", "train.py", ["unguarded", "guarded", "import_load"]),
    ("i_i4_03_lmdb_dataset", "train.py", ["env", "txn", "txn_only", "lazy"]),
    ("i_i4_04_hf_set_transform", "train.py", ["local_transform", "class_transform", "map_local_only", "map_local_only spawn"]),
    ("i_i4_05_notebook_methodtype", "run_notebook.py", ["methodtype", "locale_lambda", "dynamic_protocol", "static_protocol", "nb_collate"]),
    ("i_i4_06_safe_lookalikes", "lookalikes.py", ["partial_collate", "lambda_collate", "bound_collate_subclass", "partial_pool",
                                                  "local_lambda_in_method", "local_def_init_only", "module_class_collate", "parent_lambda"]),
]


def outcome(cmd, cwd):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "timeout"
    out = (p.stdout + p.stderr).strip().splitlines()
    oks = [l for l in out if l.startswith("OK")]
    errs = [l for l in out if "Error" in l and not l.startswith(" ")]
    if "bootstrapping phase" in p.stdout + p.stderr:
        return "fails: RuntimeError (bootstrapping phase) in the re-imported workers" + (" + " + errs[-1][:90] if errs else "")
    if p.returncode == 0 and oks:
        return "runs: " + oks[-1][:60]
    return "fails: " + (errs[-1][:150] if errs else out[-1][:150] if out else "rc=%d" % p.returncode)


print("| script | case | spawn (winspawn_lint.spawnrun) | fork (plain python) |")
print("|---|---|---|---|")
for folder, script, cases in CASES:
    cwd = os.path.join(HERE, folder)
    for case in cases:
        args = case.split()
        s = outcome([sys.executable, "-m", "winspawn_lint.spawnrun", "--start-method", "spawn", script] + args, cwd)
        f = outcome([sys.executable, script] + args, cwd)
        print("| %s/%s | %s | %s | %s |" % (folder, script, case, s.replace("|", "/"), f.replace("|", "/")))
