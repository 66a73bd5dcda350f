summ(){ # $1 = output
  r=$(echo "$1" | grep -E "^RESULT" | tail -1)
  e=$(echo "$1" | grep -oE "Can't (get attribute|pickle) [^>]*>?|bootstrapping phase|AttributeError: Can't pickle local object '[^']*'|PicklingError: Can't pickle <function <lambda>[^:]*: attribute lookup <lambda> on __main__ failed|DataLoader worker \(pid\(s\) [0-9]+\) exited unexpectedly|AssertionError: workers failed" | sed -E 's/pid\(s\) [0-9]+/pid(s) N/; s/0x[0-9a-f]+/0x…/' | sort -u | head -2 | tr '\n' ';')
  if echo "$r" | grep -q OK; then echo "OK"; elif echo "$r" | grep -q HANG; then echo "HANG (${e%;})"; else echo "FAIL (${e%;})"; fi
}
row(){ dir=$1; s=$2; c=$3; cd "$dir"; a=$(timeout 60 python -m winspawn_lint.spawnrun --start-method spawn $s $c 2>&1); b=$(timeout 60 python $s $c 2>&1); echo "| $4 | $c | $(summ "$a") | $(summ "$b") |"; cd - >/dev/null; }
R="$(cd "$(dirname "$0")" && pwd)"
for c in pool_func guarded_pool_func process_class class_arg_only dataloader_dataset notebook_lambda_collate imported_module num_workers0; do row $R c_c3_01_notebook_definition.py $c c_c3_01_notebook_definition.py; done
for c in worker_init_lambda transforms_lambda named_function builtin parent_lambda with_open_init; do row $R c_c3_02_lambda_in_loader.py $c c_c3_02_lambda_in_loader.py; done
for c in subclass_lambda named_collate; do row $R/c_c3_03_loader_subclass_lambda main.py $c c_c3_03_loader_subclass_lambda/main.py; done
for c in guard_def module_def; do row $R c_c3_04_def_under_guard.py $c c_c3_04_def_under_guard.py; done
for c in local_class config_import_workers unguarded_train unguarded_processes guarded_train guarded_processes; do row $R/c_c3_05_numbered_scripts_config train.py $c c_c3_05_numbered_scripts_config/train.py; done
