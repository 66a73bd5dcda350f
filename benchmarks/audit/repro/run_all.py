"""Run every repro case under emulated spawn and under fork; print a Markdown table of outcomes.

    python benchmarks/audit/repro/run_all.py [--timeout 60] [--only r05] > RESULTS.md

Each case runs in a fresh interpreter through ``python -m winspawn_lint.spawnrun --start-method M``;
the outcome is ``ok`` (exit 0), ``hang`` (killed at the timeout) or the exception type named on
the last line of stderr.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = [
    ("r01_lambda_collate.py", ["hazard", "workers0", "module_fn"]),
    ("r02_local_def_with_transform.py", ["transform", "collate", "safe"]),
    ("r03_compose_lambda.py", ["local", "main_level", "attr", "target", "workers0", "module_fn"]),
    ("r04_local_class.py", ["local_dataset", "local_from_factory", "nested_in_class"]),
    ("r05_resources.py", ["open_file", "thread_lock", "lmdb_env", "h5py_file", "generator", "library_lmdb",
                          "getstate", "lazy", "closed", "memmap", "pil_image"]),
    ("r06_lru_closure.py", ["hazard", "module_fn"]),
    ("r07_unguarded.py", ["loop", "call", "pool", "guarded"]),
    ("r08_start_method.py", ["import_time", "guarded", "in_main_force"]),
    ("r09_datasets_map.py", ["lambda", "closure", "guard_level_def", "unguarded", "unguarded_num_proc1"]),
    ("r10_import_heavy.py", ["heavy", "guarded"]),
    ("r11_cross_module/train.py", ["target_lambda", "local_def", "safe"]),
    ("r12_pool_in_function.py", ["demo"]),
    ("r13_generators.py", ["torch_generator_attr", "torch_generator_sampler", "tensor_from_generator"]),
    ("r14_partial_itemgetter.py", ["partial_module", "itemgetter", "partial_local"]),
    ("r15_spawn_process.py", ["module_fn", "local_fn", "process_lambda"]),
    ("r16_cloudpickle_wrapper.py", ["wrapper", "joblib"]),
    ("r17_trainer_attrs.py", ["metrics_lambda", "local_collator", "bound_method"]),
    ("r18_workers_per_epoch.py", ["per_epoch", "cycle", "persistent"]),
    ("r19_held_out_lookalikes.py", ["threadpool_lambda", "staticmethod_collate", "partial_factory", "lazy_lock",
                                    "eager_lock"]),
]


def outcome(script: Path, case: str, method: str, timeout: float) -> str:
    cmd = [sys.executable, "-m", "winspawn_lint.spawnrun", "--start-method", method, script.name, case]
    try:
        proc = subprocess.run(cmd, cwd=script.parent, capture_output=True, text=True, timeout=timeout,
                              start_new_session=True)
    except subprocess.TimeoutExpired as exc:
        # start_new_session: the whole process group (workers included) is ours to end.
        return "hang" + (f" ({exc.timeout:.0f}s)")
    out = proc.stdout
    marker = out.count("LOADING")
    extra = f", LOADING x{marker}" if marker else ""
    if proc.returncode == 0:
        return "ok" + extra
    errors = re.findall(r"^(\w+(?:\.\w+)*(?:Error|Exception|Interrupt|Pool)\b[^\n]{0,70})", proc.stderr, re.M)
    tail = errors[-1] if errors else f"exit {proc.returncode}"
    return tail.replace("|", "/") + extra


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
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
