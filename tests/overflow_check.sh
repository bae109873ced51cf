#!/bin/sh
# overflow_check.sh CHILD: a ULT that overflows its stack must end the process with a
# non-zero status and a message on stderr that names the thread ("deep-recursion").
# The child is tests/test_overflow_child.c, run with --overflow.
child="$1"
[ -x "$child" ] || { echo "overflow_check: no child program '$child'"; exit 1; }
err=$(mktemp)
trap 'rm -f "$err"' EXIT
"$child" --overflow 2>"$err" >/dev/null
status=$?
echo "child exit status: $status"
echo "child stderr:"; sed 's/^/  /' "$err" | head -20
if [ "$status" -eq 0 ]; then
    echo "FAIL: the process exited 0 after a stack overflow"
    exit 1
fi
if ! grep -q "stack overflow" "$err" || ! grep -q "deep-recursion" "$err"; then
    echo "FAIL: stderr does not report a stack overflow naming the thread 'deep-recursion'"
    exit 1
fi
echo "PASS"
exit 0
