"""Runs every q4 reproduction case under emulated spawn and under fork; prints a markdown table."""
import os, subprocess, sys
here = os.path.dirname(os.path.abspath(__file__))
CASES = {
    "q_q4_01_unguarded_pkg_train": ["unguarded", "heavy", "guarded"],
    "q_q4_02_notebook_lambda_loader": ["lambda_loader", "lambda_zero_workers", "nb_def_loader", "imported_loader"],
    "q_q4_03_notebook_defined_dataset": ["nb_class", "nb_collate_only", "nb_class_zero_workers", "imported"],
    "q_q4_04_lambda_in_init_compose": ["lambdas", "lambdas_fixed", "zero_workers"],
    "q_q4_05_module_lambda_target_transform": ["lambda", "fixed", "zero_workers"],
    "q_q4_06_unguarded_experiment_loop": ["unguarded", "guarded"],
}
print("| script | case | spawn | fork |\n|---|---|---|---|")
for d, cases in CASES.items():
    for c in cases:
        res = []
        for m in ("spawn", "fork"):
            p = subprocess.run([sys.executable, os.path.join(here, d, "run_case.py"), c, m],
                               capture_output=True, text=True, timeout=120)
            res.append((p.stdout.strip() or p.stderr.strip()[-200:]).replace("|", "/"))
        print(f"| {d} | {c} | {res[0]} | {res[1]} |")
