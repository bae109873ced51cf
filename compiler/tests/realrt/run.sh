#!/bin/sh
# run.sh BIN_DIR [c|cxx]
# c (the default): realrt built without the plugin and with each yield variant, at
# -O0..-O3, must print the same stdout, with the 20 us timer and with a yield taken at
# every check (--every); the plugin builds must really interleave the two ULTs (switches
# and interleavings on stderr), and no build may yield inside the signal handler or the
# ito_noyield function (the violation counts on stdout are 0). The budget builds
# (--ito-check=budget) ignore the timer's flag: they yield when their countdown runs out,
# every 2,000 estimated instructions here (ITO_COOP_BUDGET), and at every check with
# ITO_COOP_BUDGET=1 (--every).
# cxx: realrt_cxx built by ito-c++ without the plugin and with min, stub, bound and budget
# at -O0 and -O2 must print the same stdout (no destructor skipped: "guards left: 0"), the plugin
# builds really interleaving the two ULTs, and so must the build without the plugin under
# signal preemption.
set -eu
bin=$1 lang=${2:-c}
fail() { echo "realrt ($lang): $*"; exit 1; }
# same_interleaved NAME OFF_OUT BUILD [MIN_SWITCHES]: BUILD's run printed OFF_OUT's stdout
# and interleaved (more than MIN_SWITCHES switches, default 100)
same_interleaved() {
  "$3" > "$3.out" 2> "$3.err" || fail "$1 exited $?"
  cmp -s "$2" "$3.out" || { diff "$2" "$3.out"; fail "$1: output differs"; }
  sw=$(sed -n 's/^switches //p' "$3.err") min=${4:-100}
  set -- "$1" $(sed -n 's/^interleavings //p' "$3.err")
  [ "$sw" -gt "$min" ] && [ "$2" -gt 5 ] && [ "$3" -gt 5 ] ||
    fail "$1: no real interleaving (switches $sw, interleavings $2 $3)"
  summary="switches $sw, interleavings $2 $3"
}
if [ "$lang" = cxx ]; then
  for O in 0 2; do
    off=$bin/realrt_cxx-off-O$O
    "$off" > "$off.out" 2> "$off.err" || fail "off -O$O exited $?"
    grep -qx "guards left: 0" "$off.out" || fail "off -O$O: $(tail -1 "$off.out")"
    # signal preemption of the build without checks: switched anywhere in its own code
    printf '#!/bin/sh\nexec "%s" --signal\n' "$off" > "$off-signal"
    chmod +x "$off-signal"
    same_interleaved "off --signal -O$O" "$off.out" "$off-signal" 20 # a tick in libstdc++ waits
    echo "C++ -O$O off under signal preemption: same output; $summary"
    for V in min stub bound budget; do
      case $V in budget) export ITO_COOP_BUDGET=2000 ;; esac
      same_interleaved "$V -O$O" "$off.out" "$bin/realrt_cxx-$V-O$O"
      unset ITO_COOP_BUDGET
      echo "C++ -O$O $V: same output; $summary"
    done
  done
  exit 0
fi
for O in 0 1 2 3; do
  "$bin/realrt-off-O$O" > "$bin/off$O.out" 2> "$bin/off$O.err" || fail "off -O$O exited $?"
  "$bin/realrt-off-O$O" --every > "$bin/offE$O.out" 2> "$bin/offE$O.err" || fail "off --every -O$O"
  grep -qx "noyield violations: 0" "$bin/off$O.out" || fail "off -O$O: $(cat "$bin/off$O.out")"
  grep -qx "handler violations: 0" "$bin/off$O.out" || fail "off -O$O: handler"
  grep -qx "handler runs: 12" "$bin/off$O.out" || fail "off -O$O: handler runs"
  for V in min abi full stub bound budget budgetbound budgetmin; do
    b=$bin/realrt-$V-O$O
    case $V in budget*) export ITO_COOP_BUDGET=2000 ;; esac
    same_interleaved "$V -O$O" "$bin/off$O.out" "$b"
    # a yield at every check: many more switches than the two rearmers alone make
    case $V in budget*) export ITO_COOP_BUDGET=1 ;; esac
    "$b" --every > "$b.every.out" 2> "$b.every.err" || fail "$V --every -O$O exited $?"
    unset ITO_COOP_BUDGET
    cmp -s "$bin/offE$O.out" "$b.every.out" || fail "$V --every -O$O: output differs"
    swoff=$(sed -n 's/^switches //p' "$bin/offE$O.err")
    swe=$(sed -n 's/^switches //p' "$b.every.err")
    [ "$swe" -gt $((swoff * 4)) ] || fail "$V --every -O$O: $swe switches (plain build: $swoff)"
    echo "-O$O $V: same output; $summary; every check: $swe switches"
  done
done
