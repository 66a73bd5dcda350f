#!/bin/bash
# runs every case of every r_r2 reproduction under spawn (winspawn_lint.spawnrun) and fork (plain python)
cd "$(dirname "$0")"
run() { # dir script case
  for mode in spawn fork; do
    if [ $mode = spawn ]; then cmd="python -m winspawn_lint.spawnrun --start-method spawn $2 $3"; else cmd="python $2 $3"; fi
    out=$(cd $1 && timeout 60 $cmd 2>&1); rc=$?
    last=$(echo "$out" | grep -E "OK|Error|error:|Exception" | tail -1 | cut -c1-150)
    markers=$(echo "$out" | grep -c -E "HEAVY-MODEL-BUILD|IMPORT-TIME-GPU-SETUP")
    echo "| $1/$2 | $3 | $mode | rc=$rc | markers=$markers | $last |"
  done
}
run r_r2_01_local_worker_init_fn train.py hazard
run r_r2_01_local_worker_init_fn train.py safe_module_fn
run r_r2_01_local_worker_init_fn train.py safe_val_loader
run r_r2_02_def_under_main_guard train_LA.py hazard
run r_r2_02_def_under_main_guard train_LA.py safe
run r_r2_03_unguarded_road_train train.py hazard
run r_r2_03_unguarded_road_train train.py safe
run r_r2_04_slide_handle_in_init probs_map.py hazard
run r_r2_04_slide_handle_in_init probs_map.py safe_lazy
run r_r2_04_slide_handle_in_init probs_map.py safe_pool
run r_r2_05_import_time_cuda_in_imported_module train.py hazard
run r_r2_05_import_time_cuda_in_imported_module train.py safe
# notebook emulation: the runner itself chooses the start method (python -c main module, like a kernel)
for c in safe_module_dataset hazard_notebook_dataset; do for m in spawn fork; do
  out=$(cd r_r2_06_notebook_dataset_module && timeout 60 python run_notebook.py $c $m 2>&1); rc=$?
  echo "| r_r2_06_notebook_dataset_module/run_notebook.py | $c | $m | rc=$rc | markers=0 | $(echo "$out" | grep -E "OK|AttributeError|Error" | head -1 | cut -c1-150) |"
done; done
