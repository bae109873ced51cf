#!/bin/sh
# locks.sh BIN_DIR: locks.c built with the plugin (stub, bound, min, budget; -O0, -O2) ends
# with the right sum in 8 ULTs on 2 workers under FLAG preemption (locks_main.c): no yield
# point inside its loop that holds a pthread mutex (a point there hung every run).
set -eu
bin=$1 suite=locks
. "$(dirname "$0")/each_build.sh"
# 20000 nodes 0..19999: the locked loop sums them, the unlocked one xors in 0,1,0,1...: 0
want=$((8 * 300 * (19999 * 20000 / 2)))
check() {
  [ "$2" = sum ] && [ "$4" = switches ] || fail "$1: bad output: $*"
  [ "$3" = "$want" ] || fail "$1: sum $3, want $want"
}
each_build 20 check
