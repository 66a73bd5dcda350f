#!/bin/bash
# Runs every m2 reproduction case under emulated spawn and under fork; prints a markdown table row per case.
cd "$(dirname "$0")"
run() { # dir script case
  local d=$1 s=$2 c=$3
  sp=$(cd $d && timeout 60 python -m winspawn_lint.spawnrun --start-method spawn $s $c 2>&1)
  fk=$(cd $d && timeout 60 python $s $c 2>&1)
  summ() { if echo "$1" | grep -q "bootstrapping phase"; then echo "RuntimeError (bootstrapping phase)";
           elif echo "$1" | grep -q "PicklingError"; then echo "$(echo "$1" | grep -m1 PicklingError | cut -c1-110)";
           elif echo "$1" | grep -q "^OK"; then echo "$(echo "$1" | grep -m1 '^OK')"; else echo "other: $(echo "$1" | tail -1 | cut -c1-80)"; fi; }
  echo "| $d/$s | $c | $(summ "$sp") | $(summ "$fk") |"
}
for c in unguarded_for unguarded_with unguarded_if import_load guarded zero_workers safe_parts pool_partial; do run m_m2_01_flat_script_loop main.py $c; done
for c in hazard safe; do run m_m2_02_lib_local_namedtuple train.py $c; done
