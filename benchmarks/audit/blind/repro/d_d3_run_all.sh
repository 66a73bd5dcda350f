#!/bin/bash
# Runs every case under spawn (winspawn_lint.spawnrun) and fork (plain python); prints a markdown table.
cd "$(dirname "$0")"
run() { # script case
  for mode in spawn fork; do
    if [ $mode = spawn ]; then out=$(timeout 60 python -m winspawn_lint.spawnrun --start-method spawn $1 $2 2>&1); rc=$?
    else out=$(timeout 60 python $1 $2 2>&1); rc=$?; fi
    if [ $rc = 124 ]; then s="timeout (hang)"; else
    s=$(echo "$out" | grep -m1 -o -E "^OK.*|Can't get attribute '[^']*' on <module '[^']*'|Can't pickle local object '[^']*'|Can't pickle <function <lambda>[^:]*: attribute lookup <lambda> on [^ ]* failed|bootstrapping phase|exited unexpectedly" ); fi
    [ -z "$s" ] && s="rc=$rc"
    eval "r_$mode=\"\$s (rc=$rc)\""
  done
  echo "| $1 | $2 | $r_spawn | $r_fork |"
}
echo "| script | case | spawn | fork |"; echo "|---|---|---|---|"
for c in dataset_class transform_fn collate_fn local_collate workers0 lambda_noworkers sampler library lambda_loader_helper partial_loader_model_lambda; do run d_d3_01_notebook_defs.py $c; done
for c in array pairwise fixed; do run d_d3_02_global_nested_def/notebook_driver.py $c; done
for c in unguarded workers0 guarded; do run d_d3_03_unguarded_loader.py $c; done
for c in closed open; do run d_d3_04_closed_tables_file.py $c; done
