#!/bin/sh
# exports_check.sh LIBITO_SO HOOKS_A: the shared libito exports only ito_* names (its
# dynamic symbol table: no internal itoi_* function, no -finstrument-functions hook that
# would capture a user's own __cyg_profile_func_enter/exit), and libito_regwin_hooks
# defines exactly those two hooks. Names a sanitizer's instrumentation adds (in the ASan
# and TSan trees, e.g. ___asan_globals_registered, __start_asan_globals) are the only
# others allowed.
set -u
so=$1 hooks=$2
status=0
san='^_*((start|stop)_)?(asan|tsan|ubsan|sanitizer)_'
defined=$(nm -D --defined-only "$so" | awk '{print $3}' | sed 's/@.*//' | grep -Ev "$san")
[ -n "$defined" ] || { echo "FAIL: no dynamic symbols read from $so"; exit 1; }
echo "$(echo "$defined" | wc -l) symbols exported by $(basename "$so")"
others=$(echo "$defined" | grep -v '^ito_')
if [ -n "$others" ]; then
    echo "FAIL: $(basename "$so") exports names outside ito_*:"; echo "$others" | sed 's/^/  /'
    status=1
fi
for need in ito_init ito_create ito_version ito_regwin_func_enter ito_coop_flag ito_coop_budget \
        ito_coop_set_budget; do
    echo "$defined" | grep -qx "$need" || { echo "FAIL: $need is not exported"; status=1; }
done
hooks_defined=$(nm --defined-only --extern-only "$hooks" | awk 'NF == 3 {print $3}' | grep -Ev "$san" |
    sort | tr '\n' ' ')
if [ "$hooks_defined" != "__cyg_profile_func_enter __cyg_profile_func_exit " ]; then
    echo "FAIL: $(basename "$hooks") defines '$hooks_defined'"; status=1
fi
[ "$status" = 0 ] && echo "ok exported symbols"
exit $status
