"""Run every g3 reproduction case under emulated spawn and under fork; print a markdown table."""
import subprocess, sys, os, re
HERE = os.path.dirname(os.path.abspath(__file__))
CASES = [
    ("g_g3_01_notebook_defs.py", ".", c) for c in
    ["dataset_class", "pool_function", "target_transform_fn", "target_transform_importable",
     "mp_pool_dill", "mp_pool_dill_selfcontained", "dill_map_globals", "dill_map_pure",
     "model_class_only", "importable_dataset"]
] + [
    ("g_g3_02_unguarded_script.py", ".", c) for c in ["unguarded_loop", "import_build", "guarded"]
] + [
    ("main.py", "g_g3_03_factory_local_class", c) for c in
    ["CIFAR10IncludeLabels", "CIFAR10", "CIFAR10ModuleLevelIncludeLabels"]
] + [
    ("train.py", "g_g3_04_module_lambda_attr", c) for c in ["module_lambda", "def_identity", "parent_lambda"]
] + [
    ("g_g3_05_local_fn_executor.py", ".", c) for c in ["local_fn", "module_fn"]
]

def outcome(cmd, cwd):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired as e:
        err = (e.stderr or b"")
        err = err.decode() if isinstance(err, bytes) else err
        m = re.findall(r"^(\w+Error: .*)$", err, re.M)
        return "timeout 60s (hang)" + (f"; workers: {m[0][:90]}" if m else "")
    out = p.stdout + p.stderr
    ok = re.findall(r"^OK.*$", p.stdout, re.M)
    errs = re.findall(r"^(?:\w+\.)*(\w+Error: .*|RuntimeError: *)$", out, re.M)
    if "bootstrapping phase" in out:
        return f"rc={p.returncode}: RuntimeError (bootstrapping phase)"
    if ok and p.returncode == 0 and not errs:
        return ok[-1][:90]
    if ok and p.returncode == 0:
        return ok[-1][:60] + f" (worker stderr: {errs[0][:60]})"
    return f"rc={p.returncode}: " + (errs[-1][:100] if errs else "failed")

print("| script | case | spawn (emulated) | fork |")
print("|---|---|---|---|")
for script, sub, case in CASES:
    cwd = os.path.join(HERE, sub)
    sp = outcome([sys.executable, "-m", "winspawn_lint.spawnrun", "--start-method", "spawn", script, case], cwd)
    fk = outcome([sys.executable, script, case], cwd)
    name = script if sub == "." else f"{sub}/{script}"
    print(f"| {name} | {case} | {sp} | {fk} |".replace("\n", " "))
    sys.stdout.flush()
