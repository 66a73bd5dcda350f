"""Run every b-repro case under emulated spawn and under fork (plain python on Linux, Python 3.11); print a
Markdown table with the command, the outcome and the key error line.

    python benchmarks/audit/blind/repro/run_b.py [--timeout 45] [--only b_03] > benchmarks/audit/blind/repro/RESULTS-b.md

Outcome: ``ok`` (exit 0), ``hang`` (killed at the timeout; the whole process group goes), or the last
``...Error: ...`` line printed (stderr and stdout: IPython prints notebook tracebacks on stdout).  ``LOADING xN``
counts the marker lines of the import-time-work cases (once per process that ran the load).
"""
from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = [
    ("b_01_module_level_loop/train.py", ["loop", "iter_once", "workers0", "heavy", "guarded_iter"]),
    ("b_02_syspath_heavy_model/scripts/train.py", ["unguarded", "guarded", "ctor_in_main"]),
    ("b_03_resource_datasets/train.py", ["lmdb_concat", "h5py", "lazy"]),
    ("b_04_worker_init_lambda/train.py", ["seed", "noseed"]),
    ("b_05_star_import_captioning/tools/train.py", ["as_is", "no_h5", "no_lambda", "unguarded", "guarded"]),
    ("b_06_lambda_transform_factory/main.py", ["lambda_crop", "target_lambda", "named_fn"]),
    ("b_07_module_attr_global/train.py", ["module_attr", "function_attrs", "lazy_init"]),
    ("b_08_notebooks/nbrun.py", ["class_dataset", "notebook_fn_in_transform", "collate_def", "local_class",
                                "local_lambda_target", "h5py_class", "pool_bound_method", "library_dataset",
                                "workers0", "notebook_model_not_sent"]),
    ("b_09_heavy_config/train.py", ["heavy", "lazy"]),
    ("b_10_pool_at_import/main.py", ["at_import", "lazy"]),
    ("b_11_safe_lookalikes.py", ["pool_partial_in_init", "pool_partial_guarded", "lambda_in_collate_call",
                                "lambda_registry", "zip_getstate", "module_lambda_unused"]),
    ("b_12_init_paths/tools/train.py", ["init_paths"]),
]
ERROR = re.compile(r"^(\w+(?:\.\w+)*(?:Error|Exception)\b: [^\n]{0,110})", re.M)


def outcome(script: Path, case: str, method: str, timeout: float) -> str:
    if method == "fork":
        cmd = [sys.executable, script.name, case]
    else:
        cmd = [sys.executable, "-m", "winspawn_lint.spawnrun", "--start-method", method, script.name, case]
    proc = subprocess.Popen(cmd, cwd=script.parent, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        errors = ERROR.findall(err + out)
        boot = (err + out).count("bootstrapping phase")
        return (f"hang ({timeout:.0f}s)" + (f"; repeated {len(errors)}x: {errors[-1]}" if errors else "")
                + (f"; {boot}x 'start a new process before ... bootstrapping phase'" if boot else ""))
    marker = (out + err).count("LOADING")
    extra = f", LOADING x{marker}" if marker else ""
    if "bootstrapping phase" in err + out:
        extra += " (workers: 'start a new process before ... bootstrapping phase')"
    worker = re.search(r"AttributeError: Can't get attribute [^\n]*", err + out)
    if worker and proc.returncode != 0:
        extra += f" (workers: {worker.group(0)})"
    if proc.returncode == 0:
        return "ok" + extra
    errors = ERROR.findall(err + out)
    tail = errors[-1] if errors else f"exit {proc.returncode}"
    return tail.replace("|", "/") + extra


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--timeout", type=float, default=45)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    print(f"Python {sys.version.split()[0]}; spawn = `python -m winspawn_lint.spawnrun --start-method spawn SCRIPT CASE`"
          f" (run from the script's folder), fork = `python SCRIPT CASE` (Linux default start method).\n")
    print("| script | case | spawn | fork |")
    print("|---|---|---|---|")
    for name, cases in CASES:
        if args.only and not name.startswith(args.only):
            continue
        for case in cases:
            script = HERE / name
            row = [outcome(script, case, m, args.timeout) for m in ("spawn", "fork")]
            print(f"| {name} | {case} | {row[0]} | {row[1]} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
