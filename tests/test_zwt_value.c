/* test_zwt_value: the value an entry's code receives is the entry's value: the last one
 * stored by an accepted ito_continue_value, kept by plain continuations, re-arms and sets;
 * 0 in a new frame (zwt.h). A reviewer found (2026-12-04) that the header promised "0 if
 * the firing continuation carries none" while the entry kept its earlier value; the header
 * now states what the runtime does, and this test holds it to that. */
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic uint64_t got[4];
static atomic_int n;

static void code(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    (void)e;
    atomic_store(&got[atomic_fetch_add(&n, 1)], v);
}

static void fire(ito_frame_t *f, int with_value, uint64_t v)
{
    int before = atomic_load(&n);
    int rc;
    while ((rc = ito_rearm(f, 0, 0)) == ITO_EBUSY) CHECK_OK(ito_yield());
    CHECK_OK(rc);
    CHECK_OK(with_value ? ito_continue_value(f, 0, v) : ito_continue(f, 0));
    while (atomic_load(&n) == before) CHECK_OK(ito_yield());
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, 1, 0));
    CHECK_OK(ito_entry_set(f, 0, code, 1, ITO_MODE_USER));
    fire(f, 0, 0);  /* new frame: 0 */
    fire(f, 1, 5);  /* stored: 5 */
    fire(f, 0, 0);  /* kept by a plain continuation after a re-arm: 5 */
    CHECK_OK(ito_entry_set(f, 0, code, 1, ITO_MODE_USER));
    fire(f, 0, 0);  /* kept by a set: 5 */
    CHECK_EQ(atomic_load(&got[0]), 0);
    CHECK_EQ(atomic_load(&got[1]), 5);
    CHECK_EQ(atomic_load(&got[2]), 5);
    CHECK_EQ(atomic_load(&got[3]), 5);
    CHECK_OK(ito_frame_destroy(f));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
