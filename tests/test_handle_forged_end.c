/* test_handle_forged_end: a forged thread or frame handle anywhere in the arena, up to
 * and past the end of what has been carved, at any byte offset, is refused (ITO_EINVAL)
 * without a fault. The hot checks (itoi_arena_check_keyed) load the tag word of any
 * address below the carved end `used`; the arena maps a page of slack past `used` so
 * that this load never faults (arena.c SLACK). Without the slack, a handle forged a few
 * bytes below `used` (misaligned, or with the tag at an offset) made ito_thread_id
 * fault (SIGSEGV). The scan goes from a live descriptor 8 MiB onward, 4 bytes at a time. */
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#define SCAN ((uintptr_t)8 << 20)

static void scan(uintptr_t from, const char *what)
{
    uint64_t id;
    size_t bad = 0;
    for (uintptr_t off = 4; off < SCAN; off += 4) {
        ito_thread_t t = (ito_thread_t)(from + off);
        int r = ito_thread_id(t, &id);
        if (r != ITO_EINVAL && r != ITO_EJOINED && r != ITO_OK) bad++;
        ito_frame_t *f = (ito_frame_t *)(from + off);
        if (off % 8 == 0 && ito_frame_data(f) != NULL && ito_trylock(f, 0) == ITO_EINVAL) bad++;
    }
    CHECK_EQ(bad, 0);
    (void)what;
}

static void *body(void *arg) { return arg; }

int main(void)
{
    CHECK_OK(ito_init(NULL));
    ito_thread_t self = ito_self();
    /* a few more descriptors and a frame, so that the carved end is not where main is */
    ito_thread_t ts[64];
    for (int i = 0; i < 64; i++) CHECK_OK(ito_create(&ts[i], body, NULL, NULL));
    for (int i = 0; i < 64; i++) CHECK_OK(ito_join(ts[i], NULL));
    ito_frame_t *fr = NULL;
    CHECK_OK(ito_frame_create(&fr, 4, 64));
    scan((uintptr_t)self, "from main's descriptor");
    scan((uintptr_t)fr, "from a frame");
    CHECK_OK(ito_frame_destroy(fr));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
