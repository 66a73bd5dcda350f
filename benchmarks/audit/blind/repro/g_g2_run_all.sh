#!/bin/bash
# Runs every g2 case under emulated spawn (winspawn_lint.spawnrun) and under fork (plain python).
cd "$(dirname "$0")"
run() { # script case
  for mode in spawn fork; do
    if [ $mode = spawn ]; then cmd=(python -m winspawn_lint.spawnrun --start-method spawn "$1" "$2");
    else cmd=(python "$1" "$2"); fi
    out=$(timeout 60 "${cmd[@]}" 2>&1); rc=$?
    err=$(echo "$out" | grep -E "Error|error:" | grep -v "^ " | tail -1 | cut -c1-110)
    ok=$(echo "$out" | grep "^OK" | tail -1)
    echo "| $1 | $2 | $mode | rc=$rc ${ok:-$err} |"
  done
}
run g_g2_01_slide_handles_in_init.py hazard
run g_g2_01_slide_handles_in_init.py lazy
run g_g2_02_h5_dataset_module/main.py hazard
run g_g2_02_h5_dataset_module/main.py lazy
run g_g2_03_parent_read_leaves_h5_open.py hazard
run g_g2_03_parent_read_leaves_h5_open.py plain
run g_g2_03_parent_read_leaves_h5_open.py closed
run g_g2_04_unguarded_pool_script/example.py hazard
run g_g2_04_unguarded_pool_script/example.py guarded
run g_g2_05_unguarded_main_loader/main.py hazard
run g_g2_05_unguarded_main_loader/main.py guarded
run g_g2_06_notebook_class_patch/quickstart.py hazard
run g_g2_06_notebook_class_patch/quickstart.py subclass
