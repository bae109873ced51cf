#!/bin/sh
# tlsmove.sh BIN_DIR: tlsmove built with the plugin (stub, bound, min, abi; -O0..-O3; PIC
# and not) never uses another kernel thread's errno or thread_local after a ULT moved, and
# never loses its errno, nor keeps the old worker's pthread_self() in a call-free loop
# (selfmoves: loops in which its ULT moved); built without the plugin at -O2 it does (the
# check can fail).
set -eu
bin=$1
fail() { echo "tlsmove: $*"; exit 1; }
for exe in "$bin"/tlsmove-*; do
  case $exe in *.out) continue ;; esac
  name=${exe##*/}
  # ULTs move only when the other worker steals them: a run in which none moved (a loaded
  # machine) measured nothing, and is repeated up to 5 times.
  for attempt in 1 2 3 4 5; do
    "$exe" > "$exe.out" || fail "$name exited $?"
    set -- $(cat "$exe.out")
    [ "$1" = moves ] && [ "$3" = stale ] && [ "$5" = lost ] && [ "$7" = selfmoves ] ||
      fail "$name: bad output: $(cat "$exe.out")"
    # without the plugin self_loop has no yield points: no ULT moves inside it
    case $name in tlsmove-off-*) self=1 ;; *) self=$8 ;; esac
    [ "$2" -gt 0 ] && [ "$self" -gt 0 ] && break
    echo "$name: attempt $attempt: no ULT moved ($*), again"
  done
  [ "$2" -gt 0 ] && [ "$self" -gt 0 ] || fail "$name: no ULT ever moved in 5 runs"
  case $name in
    tlsmove-off-*) [ "$4" -gt 0 ] || fail "$name: no stale address without the plugin ($*)" ;;
    *) [ "$4" = 0 ] && [ "$6" = 0 ] || fail "$name: $*" ;;
  esac
  echo "$name: $*"
done
