#!/bin/sh
# rdynhost.sh BIN_DIR: rdynhost (built by ito-cc without the runtime, -rdynamic) loads
# rdynext-<variant>.so (examples/compiled_yield.c built by ito-cc in that variant as a
# shared object linked with libito, main renamed ext_run); each extension's spinner must be
# preempted at its compiled yield points, which are bound to
# the host's exported fallback: the fallback hands them to the runtime.
set -eu
bin=$1
fail() { echo "rdynhost: $*"; exit 1; }
n=0
for ext in "$bin"/rdynext-*.so; do
  name=${ext##*/}
  out=$(timeout 60 "$bin/rdynhost" "$ext" 2>&1) || fail "$name: exit $?: $out"
  case $out in *"the ticker ran 20 times while the spinner looped"*) ;; *) fail "$name: bad output: $out" ;; esac
  echo "$name: ok"
  n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no extensions in $bin"
