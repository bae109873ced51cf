#!/bin/sh
# gdb_check.sh: drives gdb in batch mode over tests/gdb/gdb_target with the extension
# tools/gdb/ito.py and checks what it prints: `ito ults` lists the parked ULTs with their
# states and what they wait on, `ito bt` shows the frames of a parked ULT (its own
# function and the ito call it waits in), and the program then runs to its end
# (the registers were given back).
#   gdb_check.sh GDB TARGET EXTENSION
set -eu
gdb=$1 target=$2 ext=$3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$gdb" -nx -batch \
  -ex "set pagination off" -ex "set confirm off" -ex "set debuginfod enabled off" \
  -ex "set print thread-events off" \
  -ex "break gdb_stop_here" -ex "run" -ex "source $ext" \
  -ex "ito workers" -ex "ito ults" -ex "ito io" -ex "ito bt parked-one" -ex "ito bt chan-waiter 30" \
  -ex "ito bt quick-one" -ex "continue" \
  "$target" >"$out" 2>&1 || true
cat "$out"
fail=0
check() {
  if ! grep -Eq "$1" "$out"; then echo "gdb_check: missing: $1"; fail=1; fi
}
check '^worker 0 \(tid [0-9]+\): ULT 0$'
check '^  [0-9]+ +main +running +0 +-$'
check '^worker 0: sleep_state [0-9], calls (none|waiting), inbox [0-9]+, timer_next '
check '^  [0-9]+ +parked-one +blocked +- +mutex$'
check '^  [0-9]+ +chan-waiter +blocked +- +chan recv$'
check '^  [0-9]+ +quick-one +finished +- +-$'
check '^ULT [0-9]+ \(parked-one\), blocked on mutex:$'
check 'ito_mutex_lock'
check 'wait_here_for_mutex'
check 'parked_one'
check '^ULT [0-9]+ \(chan-waiter\), blocked on chan recv:$'
check 'wait_on_channel'
check 'chan_waiter'
check 'ULT [0-9]+ \(quick-one\)'
# Not anchored: the target's stdout and gdb's own messages share one file, and the
# target's buffered line may land in the middle of one of gdb's (CI, 2026-12-07:
# "[gdb_target: ok" / "Thread ... exited]").
check 'gdb_target: ok'
check 'exited normally'
if grep -q "Python Exception\|Error occurred in Python" "$out"; then echo "gdb_check: a Python error"; fail=1; fi

# Without debug information (a Release build of libito) the commands say so, instead of
# a raw Python error (found by an API audit, 2026-12-05: "'itoi_rt' has unknown type").
if command -v objcopy >/dev/null 2>&1; then
  nodebug=$(mktemp)
  trap 'rm -f "$out" "$nodebug"' EXIT
  objcopy --strip-debug "$target" "$nodebug"
  "$gdb" -nx -batch \
    -ex "set pagination off" -ex "set confirm off" -ex "set debuginfod enabled off" \
    -ex "break gdb_stop_here" -ex "run" -ex "source $ext" -ex "ito ults" -ex "kill" \
    "$nodebug" >"$out" 2>&1 || true
  echo "--- without debug information:"
  cat "$out"
  check 'ito: libito has no debug information'
  if grep -q "Python Exception" "$out"; then echo "gdb_check: a Python error without debug information"; fail=1; fi
fi
exit $fail
