"""Run every s_s1 reproduction case under emulated spawn and under fork; print one line per run."""
import os, subprocess, sys
HERE = os.path.dirname(os.path.abspath(__file__))
CASES = [
    ("s_s1_01_unguarded_framework/train_script.py", ["unguarded", "guarded"]),
    ("s_s1_02_unpicklable_embedding/run.py", ["fasttext_retrain", "gensim_retrain", "bpemb_retrain", "predict_default"]),
    ("s_s1_03_local_pool_initializer.py", ["local_initializer", "lambda_init", "module_level", "sort_lambda", "initializer_ctx"]),
    ("s_s1_04_local_dataset_class/run.py", ["ptb", "snli"]),
    ("s_s1_05_unguarded_library_pool/example.py", ["unguarded", "guarded", "qa_init"]),
    ("s_s1_06_notebook_dataset.py", ["notebook_workers1", "notebook_workers0"]),
]

def run(cmd):
    try:
        r = subprocess.run(cmd, cwd=HERE, capture_output=True, text=True, timeout=60)
        out = (r.stdout + r.stderr).splitlines()
        err = [l for l in out if l.startswith(("AttributeError", "TypeError", "RuntimeError"))]
        return f"exit {r.returncode}: " + (err[0][:110] if err else (out[-1][:110] if out else ""))
    except subprocess.TimeoutExpired:
        return "timeout (60 s)"

for script, cases in CASES:
    for c in cases:
        sp = run([sys.executable, "-m", "winspawn_lint.spawnrun", "--start-method", "spawn", script, c])
        fk = run([sys.executable, script, c])
        print(f"{script} | {c} | spawn: {sp} | fork: {fk}", flush=True)
