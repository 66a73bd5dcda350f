#!/bin/bash
# runs every r1 reproduction case under emulated spawn and under fork; prints a markdown table
cd "$(dirname "$0")"
row() { # dir script case spawn_cmd fork_cmd
  local d=$1 s=$2 c=$3
  sp=$(cd $d && timeout 60 python -m winspawn_lint.spawnrun --start-method spawn $s $c 2>&1 | grep -E "^OK|Error|error:" | tail -1)
  fk=$(cd $d && timeout 60 python $s $c 2>&1 | grep -E "^OK|Error|error:" | tail -1)
  echo "| $d/$s | $c | ${sp:0:140} | ${fk:0:80} |"
}
echo "| script | case | spawn (winspawn_lint.spawnrun) | fork (plain python) |"
echo "|---|---|---|---|"
for c in hazard safe_partial safe_automain; do row r_r1_01_local_roll_func ex_esc50.py $c; done
for c in train crop_after_noise_fixed val_bound_collate; do row r_r1_02_transform_lambda_attr run.py $c; done
for c in val_default_lambda train_compose local_pipeline_0workers; do row r_r1_03_default_arg_lambda train.py $c; done
for c in esc_config_module sed_config_module sed_h5_after_config_fixed lazy_h5 notebook_datamodule; do row r_r1_04_module_and_h5_attr main.py $c; done
for c in notebook_datamodule notebook_esc; do
  sp=$(cd r_r1_04_module_and_h5_attr && CASE=$c timeout 60 python -c "exec(open('notebook_cells.py').read())" 2>&1 | grep -E "^OK|Error" | tail -1)
  fk=$(cd r_r1_04_module_and_h5_attr && CASE=$c timeout 60 python -c "exec(open('notebook_cells.py').read().replace('\"spawn\", force','\"fork\", force'))" 2>&1 | grep -E "^OK|Error" | tail -1)
  echo "| r_r1_04_module_and_h5_attr/notebook_cells.py (kernel-like: python -c exec) | $c | ${sp:0:140} | ${fk:0:80} |"
done
for c in audio_dir_custom_md audio_dir_registered audio_dir_no_md wds_local_wif; do row r_r1_05_spec_loaded_fn_local_wif train.py $c; done
for s in run_unguarded run_guarded; do
  d=r_r1_06_unguarded_train_script
  rm -f $d/heavy_count.txt
  sp=$(cd $d && timeout 60 python -m winspawn_lint.spawnrun --start-method spawn $s.py 2>&1 | grep -E "^OK|RuntimeError" | head -1)
  n1=$(wc -l < $d/heavy_count.txt); rm -f $d/heavy_count.txt
  fk=$(cd $d && timeout 60 python $s.py 2>&1 | grep -E "^OK|Error" | tail -1)
  n2=$(wc -l < $d/heavy_count.txt); rm -f $d/heavy_count.txt
  echo "| $d/$s.py | (script is the case) | ${sp:0:80}; model built $n1 times | ${fk:0:60}; model built $n2 times |"
done
