/* regwin_hooks.c: what instrumented code does at function entry and exit.
 *
 * The -finstrument-functions hooks (wired by the runtime) call itoi_regwin_enter and
 * itoi_regwin_leave with the function and its call site. They do what a SPARC caller and
 * callee do with their windows, with values that can be checked:
 *   entry  the caller passes fn and site in %o0/%o1 and the return address (site) in
 *          %o7; `save`; the callee finds them in %i0/%i1/%i7 and keeps fn, site and a
 *          cookie of both in %l0..%l2.
 *   exit   the callee checks that %l0..%l2 and %i0/%i1/%i7 still hold its values (they
 *          may have been spilled and filled, by traps or switches, in between), returns
 *          a cookie of fn in %i0, `restore`; the caller checks that its %o0 received it
 *          (through the in/out overlap, or through the in-place underflow's copy).
 * Nested calls write only the callee's ins (our outs), never our ins or locals, so the
 * checks hold at any depth. A mismatch means the window manager lost data: ITO_ESTATE.
 * (A longjmp over instrumented frames skips their exits; the runtime must not use these
 * hooks across such jumps.) */
#include "regwin.h"

#define COOKIE 0x9e3779b97f4a7c15ull

static uint64_t frame_cookie(uintptr_t fn, uintptr_t site) { return (fn * 31u) ^ site ^ COOKIE; }
static uint64_t return_cookie(uintptr_t fn) { return ~(uint64_t)fn ^ COOKIE; }

int itoi_regwin_enter(itoi_regwin_file_t *f, uintptr_t fn, uintptr_t site)
{
    if (!itoi_regwin_current(f)) return ITO_ESTATE;
    itoi_regwin_set(f, ITOI_REGWIN_O0, fn);
    itoi_regwin_set(f, ITOI_REGWIN_O0 + 1, site);
    itoi_regwin_set(f, ITOI_REGWIN_O0 + 7, site);
    int rc = itoi_regwin_save(f);
    if (rc != ITO_OK) return rc;
    if (itoi_regwin_get(f, ITOI_REGWIN_I0) != fn || itoi_regwin_get(f, ITOI_REGWIN_I0 + 1) != site)
        return ITO_ESTATE;
    itoi_regwin_set(f, ITOI_REGWIN_L0, fn);
    itoi_regwin_set(f, ITOI_REGWIN_L0 + 1, site);
    itoi_regwin_set(f, ITOI_REGWIN_L0 + 2, frame_cookie(fn, site));
    return ITO_OK;
}

int itoi_regwin_leave(itoi_regwin_file_t *f, uintptr_t fn, uintptr_t site)
{
    if (!itoi_regwin_current(f)) return ITO_ESTATE;
    if (itoi_regwin_get(f, ITOI_REGWIN_L0) != fn || itoi_regwin_get(f, ITOI_REGWIN_L0 + 1) != site ||
        itoi_regwin_get(f, ITOI_REGWIN_L0 + 2) != frame_cookie(fn, site) ||
        itoi_regwin_get(f, ITOI_REGWIN_I0) != fn || itoi_regwin_get(f, ITOI_REGWIN_I0 + 1) != site ||
        itoi_regwin_get(f, ITOI_REGWIN_I0 + 7) != site)
        return ITO_ESTATE;
    itoi_regwin_set(f, ITOI_REGWIN_I0, return_cookie(fn));
    int rc = itoi_regwin_restore(f);
    if (rc != ITO_OK) return rc;
    if (itoi_regwin_get(f, ITOI_REGWIN_O0) != return_cookie(fn) ||
        itoi_regwin_get(f, ITOI_REGWIN_O0 + 1) != site)
        return ITO_ESTATE;
    return ITO_OK;
}
