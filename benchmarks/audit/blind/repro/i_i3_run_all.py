"""Run every case of helper i3's reproductions under emulated spawn and under plain python (fork); print a
markdown table (as in ../RESULTS-i3.md). Usage: cd /work/blind-i/repro && python i_i3_run_all.py"""
import re, subprocess

CASES = [
    ('i_i3_01_lmdb_index_in_dataset.py', ['hazard', 'safe_lazy', 'safe_collate']),
    ('i_i3_02_bound_method_process.py', ['pbar_attr', 'sqlite_arg', 'process_list', 'process_list_one', 'safe']),
    ('i_i3_03_pool_local_initializer.py', ['local_init', 'safe_module_init', 'worker_global']),
    ('i_i3_04_open_file_to_worker.py', ['process_arg', 'pool_dict', 'safe_path', 'safe_parent', 'safe_obj']),
    ('i_i3_05_loader_local_collate.py', ['local_def', 'lambda', 'safe_module', 'safe_parent_lambda']),
    ('i_i3_06_unguarded_loader_script.py', ['unguarded', 'guarded', 'tensordataset']),
]


def summ(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return 'timeout'
    out, rc = p.stdout + p.stderr, p.returncode
    if rc == 0 and any(l.startswith('OK ') for l in out.splitlines()):
        return 'runs (OK)'
    for pat in ["cannot pickle '[^']+'", "Can't pickle local object '[^']+'", "bootstrapping phase", "exited unexpectedly"]:
        m = re.search(pat, out)
        if m:
            return f'fails (rc={rc}): {m.group(0)}'
    return f'fails (rc={rc})'


print('| script | case | spawn | fork |')
print('|---|---|---|---|')
for s, cs in CASES:
    for c in cs:
        print(f"| {s} | {c} | {summ(['python', '-m', 'winspawn_lint.spawnrun', '--start-method', 'spawn', s, c])} "
              f"| {summ(['python', s, c])} |")
