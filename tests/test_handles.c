/* test_handles: stale handles get error codes, never freed memory (run in the ASan tree,
 * any read of freed memory fails the test): a group destroyed twice or used after its
 * destruction; thread, frame and group handles kept across ito_finalize, and a thread
 * handle kept across ito_finalize and a new ito_init (the earlier runtime's descriptors
 * are reused by the new one); a frame destroyed and created again at the same address
 * (its old handle names the old life: refused). */
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

static void *noop(void *a) { return a; }
static void zfn(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    (void)e;
    (void)v;
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    ito_thread_t t, joined;
    CHECK_OK(ito_create(&t, noop, NULL, NULL));
    CHECK_OK(ito_create(&joined, noop, NULL, NULL));
    CHECK_OK(ito_join(joined, NULL));
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, 2, 16));
    CHECK_OK(ito_entry_set(f, 0, zfn, 1, ITO_MODE_USER));

    /* groups: double destroy, use after destroy, forged */
    ito_group_t *g, *kept;
    CHECK_OK(ito_group_create(&g));
    CHECK_OK(ito_group_create(&kept));
    CHECK_OK(ito_group_destroy(g));
    CHECK_EQ(ito_group_destroy(g), ITO_EINVAL);
    CHECK_EQ(ito_group_add(g, t), ITO_EINVAL);
    ito_preempt_stats_t ps;
    CHECK_EQ(ito_group_stats(g, &ps), ITO_EINVAL);
    CHECK_EQ(ito_group_destroy((ito_group_t *)(uintptr_t)0x7fff00ff), ITO_EINVAL);
    ito_group_t *g2;
    CHECK_OK(ito_group_create(&g2)); /* may take g's slot: g stays stale */
    CHECK_EQ(ito_group_destroy(g), ITO_EINVAL);
    CHECK_OK(ito_group_destroy(g2));

    /* a frame destroyed and created again, most likely at the same address */
    ito_frame_t *old, *again;
    CHECK_OK(ito_frame_create(&old, 2, 16));
    CHECK_OK(ito_entry_set(old, 0, zfn, 2, ITO_MODE_USER));
    CHECK_OK(ito_frame_destroy(old));
    CHECK_OK(ito_frame_create(&again, 2, 16));
    CHECK_OK(ito_entry_set(again, 0, zfn, 2, ITO_MODE_USER));
    CHECK(old != again); /* the handles differ even when the memory is the same */
    CHECK_EQ(ito_continue(old, 0), ITO_EINVAL); /* would have consumed again's count */
    CHECK_EQ(ito_entry_set(old, 0, zfn, 1, ITO_MODE_USER), ITO_EINVAL);
    CHECK(ito_frame_data(old) == NULL);
    CHECK_EQ(ito_frame_destroy(old), ITO_EINVAL);
    CHECK_OK(ito_continue(again, 0)); /* again's owner still has both of its counts */
    CHECK_OK(ito_continue(again, 0));
    while (ito_frame_destroy(again) == ITO_EBUSY) CHECK_OK(ito_yield());

    /* a joined thread */
    uint64_t id;
    char name[32];
    CHECK_EQ(ito_thread_id(joined, &id), ITO_EJOINED);
    CHECK_EQ(ito_join(joined, NULL), ITO_EJOINED);

    CHECK_OK(ito_join(t, NULL));
    CHECK_OK(ito_finalize());

    /* after ito_finalize */
    CHECK_EQ(ito_thread_id(t, &id), ITO_EJOINED);
    CHECK_EQ(ito_thread_name(t, name, sizeof name), ITO_EJOINED);
    CHECK_EQ(ito_continue(f, 0), ITO_EINVAL);
    CHECK(ito_frame_data(f) == NULL);
    CHECK_EQ(ito_frame_destroy(f), ITO_EINVAL);
    CHECK_EQ(ito_group_destroy(kept), ITO_ESTATE);

    /* a new runtime reuses the earlier one's descriptors and frames: old handles stay stale */
    CHECK_OK(ito_init(NULL));
    ito_thread_t fresh[64];
    for (int i = 0; i < 64; i++) CHECK_OK(ito_create(&fresh[i], noop, NULL, NULL));
    CHECK_EQ(ito_join(t, NULL), ITO_EJOINED);
    CHECK_EQ(ito_detach(joined), ITO_EJOINED);
    CHECK_EQ(ito_thread_id(t, &id), ITO_EJOINED);
    CHECK_EQ(ito_group_destroy(kept), ITO_EINVAL); /* an earlier runtime's group */
    for (int i = 0; i < 64; i++) CHECK_OK(ito_join(fresh[i], NULL));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
