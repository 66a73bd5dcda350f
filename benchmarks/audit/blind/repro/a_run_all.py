"""Run every a_* repro case under emulated spawn and under fork; print RESULTS-a.md (Markdown).

    python benchmarks/audit/blind/repro/a_run_all.py [--timeout 45] [--only a_05] > RESULTS-a.md

spawn: ``python -m winspawn_lint.spawnrun --start-method spawn SCRIPT CASE``; fork: ``python SCRIPT CASE``
(Linux, Python 3.11: fork is the default).  Each runs in the script's folder, in its own session; the
outcome is ok / the key error line / hang (killed at the timeout, with the key error seen before), and
``LOADING xN`` counts a script's load marker.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = [
    ("a_01_factory_local_class/train.py", ["get_dataset", "load_split", "safe"]),
    ("a_02_global_under_guard.py", ["hazard", "safe"]),
    ("a_03_config_global/train.py", ["hazard", "safe"]),
    ("a_04_stored_lambdas/train.py", ["ssd_aug", "sampler_attr", "rotation", "kwargs_factory", "ctor_identity",
                                      "module_level", "rotation0", "module_fn", "model_attr", "parent_lambda",
                                      "bound_method", "worker_side_lambda"]),
    ("a_05_resources.py", ["h5py_init", "lmdb_init", "queue_logger", "manager_reader"]),
    ("a_06_resource_lookalikes.py", ["lmdb_lazy", "h5py_closed", "mp_lock_dict", "json_open", "lmdb_parent"]),
    ("a_07_import_heavy.py", ["heavy", "guarded", "no_workers"]),
    ("a_08_unguarded_loop.py", ["unguarded", "guarded"]),
    ("a_09_unguarded_cross_module/train.py", ["unguarded", "guarded"]),
    ("a_10_process_at_import/test.py", ["unguarded", "guarded"]),
    ("a_11_parmap/run.py", ["local_def", "under_guard", "module_fn"]),
    ("a_12_def_under_guard_partial.py", ["under_guard", "module_fn"]),
    ("a_13_collate/train.py", ["lambda_collate", "subclass_lambda", "local_def", "local_def_workers0",
                               "local_helper", "module_fn"]),
    ("a_14_notebook.py", ["dataset_class", "workers0", "model_class", "imported"]),
    ("a_15_safe_pools/run.py", ["manager_partial", "spawn_launch"]),
]
KEY = re.compile(r"(Can't pickle[^\n]*|Can't get (?:local object|attribute)[^\n]*|cannot pickle[^\n]*|h5py objects"
                 r" cannot be pickled|bootstrapping phase|NameError[^\n]*|KeyError[^\n]*|PicklingError[^\n]*)")
ERR = re.compile(r"^(\w+(?:\.\w+)*(?:Error|Exception)\b[^\n]{0,90})", re.M)


def text(b) -> str:
    return b.decode(errors="replace") if isinstance(b, bytes) else (b or "")


def outcome(script: Path, case: str, method: str, timeout: float) -> str:
    cmd = [sys.executable, script.name, case]
    if method == "spawn":
        cmd = [sys.executable, "-m", "winspawn_lint.spawnrun", "--start-method", "spawn", script.name, case]
    try:
        proc = subprocess.run(cmd, cwd=script.parent, capture_output=True, timeout=timeout, start_new_session=True)
        out, err, rc = text(proc.stdout), text(proc.stderr), proc.returncode
    except subprocess.TimeoutExpired as exc:
        out, err, rc = text(exc.stdout), text(exc.stderr), None
    n = out.count("LOADING")
    extra = f", LOADING x{n}" if n else ""
    err = err.replace(str(HERE) + "/", "")
    keys = [k for k in KEY.findall(err) if "Caught" not in k]
    detail = keys[0] if keys else (ERR.findall(err) or [f"exit {rc}"])[-1]
    if rc is None:
        return f"hang ({timeout:.0f}s; saw: {detail[:120]})".replace("|", "/") + extra
    if rc == 0:
        return "ok" + extra
    return detail[:160].replace("|", "/") + extra


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--timeout", type=float, default=45)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    print("| script | case | command | spawn | fork |")
    print("|---|---|---|---|---|")
    for name, cases in CASES:
        if args.only and not name.startswith(args.only):
            continue
        for case in cases:
            script = HERE / name
            row = [outcome(script, case, m, args.timeout) for m in ("spawn", "fork")]
            cmd = f"`cd {script.parent.relative_to(HERE.parent.parent.parent.parent)}; python [-m winspawn_lint.spawnrun --start-method spawn] {script.name} {case}`"
            print(f"| {name} | {case} | {cmd} | {row[0]} | {row[1]} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
