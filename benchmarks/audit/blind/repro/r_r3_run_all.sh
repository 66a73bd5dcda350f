#!/bin/bash
# Runs every r3 reproduction case under emulated spawn and under fork (plain python on Linux).
cd "$(dirname "$0")"
run() {  # dir script case
  out=$(cd "$1" && timeout 60 python -m winspawn_lint.spawnrun --start-method spawn "$2" "$3" 2>&1)
  if echo "$out" | grep -q "bootstrapping phase"; then s="RuntimeError: start a new process before ... bootstrapping phase (worker re-ran the unguarded script)"; else s=$(echo "$out" | tail -1); fi
  f=$(cd "$1" && timeout 60 python "$2" "$3" 2>&1 | tail -1)
  echo "| $1/$2 | $3 | $s | $f |"
}
echo "| script | case | spawn outcome | fork outcome |"
echo "|---|---|---|---|"
for c in hazard subclass local_def safe zero_workers local_def_zero bound_method; do run r_r3_01_loader_lambda_collate main.py $c; done
for c in hazard lazy safe; do run r_r3_02_lmdb_env_in_init main.py $c; done
for c in hazard safe; do run r_r3_03_import_time_data_pool main.py $c; done
for c in hazard safe; do run r_r3_04_dataset_lambda_attribute pretrain_GraphCL.py $c; done
for c in compose_lambda zero_workers; do run r_r3_04_dataset_lambda_attribute main_pretrain.py $c; done
for c in hazard zero guarded; do run r_r3_05_unguarded_loader_loop main.py $c; done
