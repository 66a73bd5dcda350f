"""Runs every s4 repro case under spawn (winspawn_lint.spawnrun) and fork (plain python);
prints a Markdown table of outcomes (used for RESULTS-s4.md)."""
import os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = [
    ("s_s4_01_factory_local_transform/sr_test.py", ["local_def", "module_def", "unguarded", "parent_lambda"]),
    ("s_s4_02_get_transform_lambda/train.py", ["scale_width", "none", "resize_and_crop", "aligned_params", "clevr_method", "test_zero_workers"]),
    ("s_s4_03_monai_lambdad_tutorial.py", ["lambdad", "named_func", "unguarded_first", "zero_workers", "parent_handler_lambda"]),
    ("s_s4_04_webdataset_pipeline_lambdas/train_c.py", ["default", "filters_given", "map_lambda_only", "multi_aspect_collate", "fixed"]),
    ("s_s4_05_main_lambda_compose.py", ["main_lambda", "main_def", "unguarded", "parent_lambda"]),
    ("s_s4_06_unguarded_ssl_main/main.py", ["unguarded", "guarded"]),
    ("s_s4_07_lmdb_env_in_init/train_ddgan.py", ["lmdb_init", "lazy_open", "process_entry"]),
]


def outcome(proc):
    out = proc.stdout + proc.stderr
    errs = re.findall(r"^(\w+(?:\.\w+)*(?:Error|Exception)[^\n]*)", out, re.M)
    boot = "bootstrapping phase" in out
    if proc.returncode == 0 and re.search(r"^OK\b", proc.stdout, re.M) and not errs:
        return "ok"
    msg = errs[-1] if errs else f"rc={proc.returncode}"
    if boot and "bootstrapping" not in msg:
        msg = "RuntimeError (bootstrapping phase, in worker); parent: " + msg
    return msg[:160].replace("|", "/")


def run(script, case, spawn):
    d = os.path.join(HERE, os.path.dirname(script))
    s = os.path.basename(script)
    cmd = [sys.executable] + (["-m", "winspawn_lint.spawnrun", "--start-method", "spawn"] if spawn else []) + [s, case]
    try:
        p = subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "timeout (60 s)"
    return outcome(p)


print("| script | case | spawn outcome | fork outcome |")
print("|---|---|---|---|")
for script, cases in CASES:
    for c in cases:
        print(f"| {script} | {c} | {run(script, c, True)} | {run(script, c, False)} |", flush=True)
