#!/bin/sh
# run.sh BIN_DIR: realrt built without the plugin and with each yield variant, at -O0..-O3,
# must print the same stdout, with the 20 us timer and with a yield taken at every check
# (--every); the plugin builds must really interleave the two ULTs
# (switches and interleavings on stderr), and no build may yield inside the signal
# handler or the ito_noyield function (the violation counts on stdout are 0).
set -eu
bin=$1
fail() { echo "realrt: $*"; exit 1; }
for O in 0 1 2 3; do
  "$bin/realrt-off-O$O" > "$bin/off$O.out" 2> "$bin/off$O.err" || fail "off -O$O exited $?"
  "$bin/realrt-off-O$O" --every > "$bin/offE$O.out" 2> "$bin/offE$O.err" || fail "off --every -O$O"
  grep -qx "noyield violations: 0" "$bin/off$O.out" || fail "off -O$O: $(cat "$bin/off$O.out")"
  grep -qx "handler violations: 0" "$bin/off$O.out" || fail "off -O$O: handler"
  grep -qx "handler runs: 12" "$bin/off$O.out" || fail "off -O$O: handler runs"
  for V in min abi full stub bound; do
    b=$bin/realrt-$V-O$O
    "$b" > "$b.out" 2> "$b.err" || fail "$V -O$O exited $?"
    cmp -s "$bin/off$O.out" "$b.out" || { diff "$bin/off$O.out" "$b.out"; fail "$V -O$O: output differs"; }
    sw=$(sed -n 's/^switches //p' "$b.err")
    set -- $(sed -n 's/^interleavings //p' "$b.err")
    [ "$sw" -gt 100 ] && [ "$1" -gt 5 ] && [ "$2" -gt 5 ] ||
      fail "$V -O$O: no real interleaving (switches $sw, interleavings $1 $2)"
    # a yield at every check: many more switches than the two rearmers alone make
    "$b" --every > "$b.every.out" 2> "$b.every.err" || fail "$V --every -O$O exited $?"
    cmp -s "$bin/offE$O.out" "$b.every.out" || fail "$V --every -O$O: output differs"
    swoff=$(sed -n 's/^switches //p' "$bin/offE$O.err")
    swe=$(sed -n 's/^switches //p' "$b.every.err")
    [ "$swe" -gt $((swoff * 4)) ] || fail "$V --every -O$O: $swe switches (plain build: $swoff)"
    echo "-O$O $V: same output; switches $sw, interleavings $1 $2; every check: $swe switches"
  done
done
