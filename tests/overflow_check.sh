#!/bin/sh
# overflow_check.sh CHILD: a ULT that overflows its stack must end the process with a
# non-zero status and a message on stderr that names the thread as ito_thread_name does:
#   --overflow  deep recursion on a 16 KiB stack, ULT "deep-recursion";
#   --jump      one 96 KiB frame on a 64 KiB stack (jumps over a single guard page);
#   --unnamed   deep recursion in an unnamed ULT: the report says "ult-<id>", the name
#               the child printed on stdout from ito_thread_name;
#   --sigframe  a signal arrives when the 16 KiB stack is nearly used up: its frame does
#               not fit, and the report must say that a signal's frame did not fit
#               (exit 77 from the child: skipped, in the sanitizer trees).
# The child is tests/test_overflow_child.c.
child="$1"
[ -x "$child" ] || { echo "overflow_check: no child program '$child'"; exit 1; }
err=$(mktemp)
out=$(mktemp)
trap 'rm -f "$err" "$out"' EXIT
fail=0
for mode in --overflow --jump --unnamed --sigframe; do
    "$child" $mode 2>"$err" >"$out"
    status=$?
    if [ "$mode" = --sigframe ] && [ "$status" -eq 77 ]; then
        echo "$mode: skipped (sanitizer build)"
        continue
    fi
    name="deep-recursion"
    [ "$mode" = --unnamed ] && name=$(head -1 "$out")
    echo "$mode: child exit status $status, expected name '$name'; stderr:"
    sed 's/^/  /' "$err" | head -20
    if [ "$status" -eq 0 ]; then
        echo "FAIL ($mode): the process exited 0 after a stack overflow"
        fail=1
    elif [ -z "$name" ] || ! grep -q "stack overflow" "$err" || ! grep -q "'$name'" "$err"; then
        echo "FAIL ($mode): stderr does not report a stack overflow naming the thread '$name'"
        fail=1
    elif [ "$mode" = --sigframe ] && ! grep -q "a signal arrived" "$err"; then
        echo "FAIL ($mode): stderr does not say that a signal's frame did not fit"
        fail=1
    fi
done
[ "$fail" -eq 0 ] && echo "PASS"
exit $fail
