#!/bin/sh
# sync_callgrind.sh [BUILD]: instructions per operation of the synchronization benchmarks,
# counted by valgrind's callgrind (deterministic: valid on a loaded machine, unlike times).
# Each program runs twice with --quick, with 1 and with 3 timed trials; the difference of
# the two instruction totals is exactly two more trials (warm-up, set-up and ito_init
# cancel out), divided by the operations of two trials. Only user-space instructions are
# counted: pthreads' kernel context switches are not, so only benchmarks that stay in user
# space are compared with pthread (rwlock_read, tls_get, once).
# Operations per trial under --quick: chan_pingpong 20000 round trips (40000 one-way
# messages), chan_mpmc 40000 items, barrier 5000 rounds, future 10000 round trips (20000
# hand-offs), sem_pingpong 40000 hand-offs, rwlock_read 200000, tls_get 500000,
# once 500000 (bench/ito/bench_sync.c, bench/peers/bench_sync_*).
set -eu
build=${1:-build/release}
ir() { # program benchmark trials -> total instructions
  out=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file="$out" "$build/bench/$1" --quick --only "$2" --trials "$3" \
    >/dev/null 2>&1
  sed -n 's/^summary: //p' "$out"
  rm -f "$out"
}
ops() {
  case $1 in
    chan_pingpong) echo 40000 ;; chan_mpmc) echo 40000 ;; barrier) echo 5000 ;;
    future) echo 20000 ;; sem_pingpong) echo 40000 ;; rwlock_read) echo 200000 ;;
    tls_get|once) echo 500000 ;;
  esac
}
printf '| benchmark | system | instructions per operation |\n|---|---|---|\n'
for entry in chan_pingpong:bench_sync:ito chan_pingpong:bench_sync_boost_fiber:boost-fiber \
             chan_mpmc:bench_sync:ito chan_mpmc:bench_sync_boost_fiber:boost-fiber \
             barrier:bench_sync:ito barrier:bench_sync_boost_fiber:boost-fiber \
             future:bench_sync:ito future:bench_sync_boost_fiber:boost-fiber \
             sem_pingpong:bench_sync:ito \
             rwlock_read:bench_sync:ito rwlock_read:bench_sync_pthread:pthread \
             tls_get:bench_sync:ito tls_get:bench_sync_pthread:pthread tls_get:bench_sync_boost_fiber:boost-fiber \
             once:bench_sync:ito once:bench_sync_pthread:pthread; do
  b=${entry%%:*} rest=${entry#*:} prog=${rest%%:*} sys=${rest#*:}
  [ -x "$build/bench/$prog" ] || { printf '| %s | %s | not built |\n' "$b" "$sys"; continue; }
  one=$(ir "$prog" "$b" 1) three=$(ir "$prog" "$b" 3)
  awk -v a="$one" -v c="$three" -v n="$(ops "$b")" -v b="$b" -v s="$sys" \
    'BEGIN { printf "| %s | %s | %.1f |\n", b, s, (c - a) / (2 * n) }'
done
