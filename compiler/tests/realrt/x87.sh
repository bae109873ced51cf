#!/bin/sh
# x87.sh BIN_DIR: x87.c built with the plugin (stub, stub with every site on the full stub,
# bound, budget, min; -O1, -O2) gives all 8 ULTs the right long double sum while they
# switch at the yield points of the sum's loop on one worker (x87_main.c).
set -eu
bin=$1
fail() { echo "x87: $*"; exit 1; }
for exe in "$bin"/x87-*; do
  case $exe in *.out | *.o) continue ;; esac
  name=${exe##*/}
  # the budget builds yield when their countdown runs out, not at the timer's ticks
  case $name in x87-budget-*) export ITO_COOP_BUDGET=2000 ;; esac
  # a run in which no ULT switched before the first finished (a loaded machine) measured
  # nothing, and is repeated up to 5 times
  for attempt in 1 2 3 4 5; do
    "$exe" > "$exe.out" || fail "$name exited $?"
    set -- $(cat "$exe.out")
    [ "$1" = bad ] && [ "$3" = interleaved ] || fail "$name: bad output: $(cat "$exe.out")"
    [ "$2" = 0 ] || fail "$name: $2 ULTs got a wrong sum"
    [ "$4" = 1 ] && break
    echo "$name: attempt $attempt: the ULTs did not switch, again"
  done
  unset ITO_COOP_BUDGET
  [ "$4" = 1 ] || fail "$name: the ULTs never switched in 5 runs"
  echo "$name: $*"
done
