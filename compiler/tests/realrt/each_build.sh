# each_build.sh, sourced by a realrt suite's script (locks.sh, callbacks.sh) after it sets
# `bin` (its BIN_DIR) and `suite` (its name). each_build SECONDS CHECK runs every build
# $bin/$suite-* three times (the budget builds with ITO_COOP_BUDGET=2000: they yield when
# their countdown runs out, not at the timer's ticks), each run bounded by SECONDS (past it
# is a hang), and calls CHECK NAME WORD... with the words the run printed on stdout; the
# suite fails at the first run that hangs, exits non-zero or that CHECK rejects (CHECK
# calls fail).
fail() { echo "$suite: $*"; exit 1; }
each_build() {
  secs=$1 check=$2
  for exe in "$bin/$suite"-*; do
    case $exe in *.out | *.err | *.o) continue ;; esac
    name=${exe##*/}
    case $name in "$suite"-budget*) export ITO_COOP_BUDGET=2000 ;; esac
    for run in 1 2 3; do
      rc=0
      timeout "$secs" "$exe" > "$exe.out" 2> "$exe.err" || rc=$?
      [ $rc = 124 ] && fail "$name: hung (run $run)"
      [ $rc = 0 ] || fail "$name exited $rc: $(head -3 "$exe.err")"
      # shellcheck disable=SC2046 # the words of the output, on purpose
      "$check" "$name" $(cat "$exe.out")
    done
    unset ITO_COOP_BUDGET
    echo "$name: $(cat "$exe.out")"
  done
}
