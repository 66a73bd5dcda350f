#!/bin/bash
# runs every j2 reproduction case under spawn (winspawn_lint.spawnrun) and fork (plain python)
cd "$(dirname "$0")"
summ() { # reduce an output to OK or its first telling error line
  local r
  if grep -q "^OK $1" <<<"$2"; then echo "OK"; return; fi
  r=$(grep -E -m1 -o "[A-Za-z]+Error: .*(pickl|serialize|get attribute).*" <<<"$2")
  [ -z "$r" ] && r=$(grep -E -m1 -o "(Can't (get|pickle)|cannot be pickled|cannot pickle|bootstrapping phase|Tried to serialize).{0,90}" <<<"$2")
  [ -z "$r" ] && r=$(grep -E -m1 -o "[A-Za-z]+Error.{0,90}" <<<"$2")
  echo "${r:0:110}"
}
run() { # dir script case
  d=$1; s=$2; c=$3
  sp=$(cd $d && timeout 60 python -m winspawn_lint.spawnrun --start-method spawn $s $c 2>&1)
  fk=$(cd $d && timeout 60 python $s $c 2>&1)
  echo "| $d/$s | $c | $(summ $c "$sp") | $(summ $c "$fk") |"
}
run j_j2_01_h5py_dataset_init train.py hazard
run j_j2_01_h5py_dataset_init train.py safe
run j_j2_02_policy_lambda_dict main.py hazard
run j_j2_02_policy_lambda_dict main.py safe
run . j_j2_03_unguarded_script_loader.py hazard
run . j_j2_03_unguarded_script_loader.py guarded
run . j_j2_03_unguarded_script_loader.py parent_lambda
run . j_j2_04_collate_and_pipeline_lambda.py collate_lambda
run . j_j2_04_collate_and_pipeline_lambda.py module_collate
run . j_j2_04_collate_and_pipeline_lambda.py pipeline_lambda
run . j_j2_04_collate_and_pipeline_lambda.py pipeline_func
run . j_j2_05_compose_lambda_in_method.py image_dataset
run . j_j2_05_compose_lambda_in_method.py caption_dataset
run j_j2_06_jit_transform_local_collate run_clip_tv.py jit_transform
run j_j2_06_jit_transform_local_collate run_clip_tv.py local_collate
run j_j2_06_jit_transform_local_collate run_clip_tv.py safe
run j_j2_06_jit_transform_local_collate run_clip_tv.py notebook_collate
run j_j2_06_jit_transform_local_collate run_clip_tv.py notebook_module_collate
