/* test_future_copied_then: a future copied byte for byte (struct assignment) while it has
 * continuations registered by ito_future_then. Copies are undefined (sync.h, as POSIX's);
 * the runtime must stay whole: the copy acts as a future with nothing registered, the
 * original keeps and fires its own continuations exactly once, each with the original's
 * value. Before the fix the copy's list was the original's nodes: setting the copy fired
 * them with the copy's value and freed them, and the original's set fired the freed nodes
 * again (AddressSanitizer: heap-use-after-free in fire; release: wrong values, double
 * fires); destroying the copy said ITO_EBUSY for the original's live frame. Found by an
 * outside tester, h68b, 2026-12-06 (documented then, fixed in stop 69). */
#include <stdatomic.h>
#include "ito/ito.h"
#include "ito_test.h"

enum { NE = 4 };
static atomic_int fired[NE];
static _Atomic uint64_t got[NE];

static void body(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    atomic_store(&got[e], v);
    atomic_fetch_add(&fired[e], 1);
}

/* Let the worker run whatever was continued, then check each entry's count and value. */
static void expect(const int want_fired[NE], const uint64_t want_val[NE])
{
    for (int i = 0; i < 200; i++) CHECK_OK(ito_yield());
    for (int e = 0; e < NE; e++) {
        CHECK_EQ(atomic_load(&fired[e]), want_fired[e]);
        if (want_fired[e]) CHECK_EQ((long)atomic_load(&got[e]), (long)want_val[e]);
    }
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    ito_frame_t *fr;
    CHECK_OK(ito_frame_create(&fr, NE, 0));
    for (int e = 0; e < NE; e++) CHECK_OK(ito_entry_set(fr, e, body, 1, ITO_MODE_USER));
    ito_future_t fs[2];

    /* the copy is set first: it fires nothing; the original fires its two, once, with 5 */
    CHECK_OK(ito_future_init(&fs[0]));
    CHECK_OK(ito_future_then(&fs[0], fr, 0));
    CHECK_OK(ito_future_then(&fs[0], fr, 1));
    fs[1] = fs[0];
    CHECK_OK(ito_future_set(&fs[1], 7));
    expect((int[NE]){0, 0, 0, 0}, (uint64_t[NE]){0});
    CHECK_OK(ito_future_set(&fs[0], 5));
    expect((int[NE]){1, 1, 0, 0}, (uint64_t[NE]){5, 5, 0, 0});
    CHECK_OK(ito_future_destroy(&fs[1]));
    CHECK_OK(ito_future_destroy(&fs[0]));

    /* the copy is destroyed while the original's frame is live (not ITO_EBUSY); a
     * registration on a second copy is the copy's alone */
    CHECK_OK(ito_future_init(&fs[0]));
    CHECK_OK(ito_future_then(&fs[0], fr, 2));
    fs[1] = fs[0];
    CHECK_OK(ito_future_destroy(&fs[1]));
    fs[1] = fs[0];
    CHECK_OK(ito_future_then(&fs[1], fr, 3));
    CHECK_OK(ito_future_set(&fs[1], 9));
    expect((int[NE]){1, 1, 0, 1}, (uint64_t[NE]){5, 5, 0, 9});
    CHECK_OK(ito_future_set(&fs[0], 4));
    expect((int[NE]){1, 1, 1, 1}, (uint64_t[NE]){5, 5, 4, 9});
    CHECK_OK(ito_future_destroy(&fs[1]));
    CHECK_OK(ito_future_destroy(&fs[0]));

    CHECK_OK(ito_frame_destroy(fr));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
