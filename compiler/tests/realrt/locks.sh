#!/bin/sh
# locks.sh BIN_DIR: locks.c built with the plugin (stub, bound, min, budget; -O0, -O2) ends
# with the right sum in 8 ULTs on 2 workers under FLAG preemption (locks_main.c): no yield
# point inside its loop that holds a pthread mutex (a point there hung every run).
set -eu
bin=$1
fail() { echo "locks: $*"; exit 1; }
# 20000 nodes 0..19999: the locked loop sums them, the unlocked one xors in 0,1,0,1...: 0
want=$((8 * 300 * (19999 * 20000 / 2)))
for exe in "$bin"/locks-*; do
  case $exe in *.out | *.o) continue ;; esac
  name=${exe##*/}
  case $name in locks-budget*) export ITO_COOP_BUDGET=2000 ;; esac
  for run in 1 2 3; do
    rc=0
    timeout 20 "$exe" > "$exe.out" || rc=$?
    [ $rc = 124 ] && fail "$name: hung (run $run)"
    [ $rc = 0 ] || fail "$name exited $rc"
    set -- $(cat "$exe.out")
    [ "$1" = sum ] && [ "$3" = switches ] || fail "$name: bad output: $(cat "$exe.out")"
    [ "$2" = "$want" ] || fail "$name: sum $2, want $want"
  done
  unset ITO_COOP_BUDGET
  echo "$name: $*"
done
