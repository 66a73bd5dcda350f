"""Run every e3 repro case under spawn (winspawn_lint.spawnrun) and fork (plain python); print a
markdown table.  Usage: python e_e3_run_all.py > table.md"""
import os, re, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = [
    ("e_e3_01_notebook_pool.py", ".", ["notebook_pool", "notebook_parfor", "lambda_in_worker", "module_function"]),
    ("e_e3_02_notebook_dataset.py", ".", ["notebook_dataset", "notebook_transforms", "parent_only_fn", "no_workers"]),
    ("run.py", "e_e3_03_factory_lambda_collate", ["lambda_collate", "partial_collate", "no_workers"]),
    ("script.py", "e_e3_04_schnet_like", ["process_lambda", "process_partial", "dataset_lambda_attr",
                                          "dataset_function_attr", "collate_lambda_main", "run_threaded_module"]),
    ("generate_data.py", "e_e3_05_unguarded_process", ["unguarded", "guarded"]),
    ("run.py", "e_e3_06_open_files_to_process", ["method_and_files", "files_arg", "fixed", "serial"]),
    ("e_e3_07_cloudpickle_workers.py", ".", ["notebook_fn_cloudpickle", "local_fn_cloudpickle", "notebook_fn_stdlib_pool"]),
    ("train.py", "e_e3_08_local_process_target", ["local_job", "local_step", "module_step"]),
]
TIMEOUT = 30
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def outcome(cmd, cwd):
    t = time.time()
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as e:
        err = ANSI.sub("", (e.stderr or b"").decode() if isinstance(e.stderr, bytes) else (e.stderr or ""))
        errs = [l.strip() for l in err.splitlines() if re.match(r"^\w*(Error|Exception)\b", l.strip())]
        return f"hang, killed at {TIMEOUT} s" + (f" (workers: {errs[-1][:110]})" if errs else "")
    text = ANSI.sub("", p.stdout + p.stderr)
    errs = [l.strip() for l in text.splitlines() if re.match(r"^\w*(Error|Exception)\b", l.strip())]
    first = errs[0] if errs else ""
    ok = "ALL CELLS OK" in text or (p.returncode == 0 and not errs)
    if ok and not errs:
        return f"ok ({time.time() - t:.0f} s)"
    if ok:
        return f"ok, but: {first[:110]}"
    fail = [l for l in text.splitlines() if "FAILED" in l]
    return (f"fails: {first[:120]}" + (f"; {fail[-1].strip()[:90]}" if fail else "")) or f"rc={p.returncode}"


print("| script | case | spawn outcome | fork outcome |")
print("|---|---|---|---|")
for script, sub, cases in RUNS:
    cwd = os.path.join(HERE, sub)
    for c in cases:
        s = outcome([sys.executable, "-m", "winspawn_lint.spawnrun", "--start-method", "spawn", script, c], cwd)
        f = outcome([sys.executable, script, c], cwd)
        name = script if sub == "." else f"{sub}/{script}"
        print(f"| `{name}` | {c} | {s} | {f} |", flush=True)
