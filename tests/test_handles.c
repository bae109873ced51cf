/* test_handles: stale handles get error codes, never freed memory (run in the ASan tree,
 * any read of freed memory fails the test): a group destroyed twice or used after its
 * destruction; thread, frame and group handles kept across ito_finalize, and a thread
 * handle kept across ito_finalize and a new ito_init (the earlier runtime's descriptors
 * are reused by the new one); a frame destroyed and created again at the same address
 * (its old handle names the old life: refused); forged thread and frame handles (pointers
 * to the stack, the heap, unmapped memory, the middle of a live descriptor or frame, a
 * copy of a live frame's header inside another frame's data) are ITO_EINVAL and are
 * refused before anything is read through them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ito/ito.h"
#include "ito_test.h"

static void *noop(void *a) { return a; }
static void zfn(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    (void)e;
    (void)v;
}

#define TAG(h) ((uintptr_t)(h) & ~(((uintptr_t)1 << 48) - 1)) /* the generation bits */
#define ADDR(h) ((uintptr_t)(h) & (((uintptr_t)1 << 48) - 1))

static void forged_threads(ito_thread_t live)
{
    uint64_t id;
    char name[32];
    unsigned char on_stack[512];
    memset(on_stack, 0xff, sizeof on_stack);
    void *heap = malloc(4096);
    CHECK(heap != NULL);
    memset(heap, 0, 4096);
    uintptr_t forged[] = {
        (uintptr_t)on_stack, (uintptr_t)heap, 0x1000, 0x7fff00ff0000u, (uintptr_t)-8,
        (ADDR(live) + 8) | TAG(live), (ADDR(live) + 64) | TAG(live), (uintptr_t)heap | TAG(live),
    };
    for (size_t i = 0; i < sizeof forged / sizeof forged[0]; i++) {
        ito_thread_t h = (ito_thread_t)forged[i];
        CHECK_EQ(ito_join(h, NULL), ITO_EINVAL);
        CHECK_EQ(ito_detach(h), ITO_EINVAL);
        CHECK_EQ(ito_thread_id(h, &id), ITO_EINVAL);
        CHECK_EQ(ito_thread_name(h, name, sizeof name), ITO_EINVAL);
        CHECK_EQ(ito_yield_to(h), ITO_EINVAL);
    }
    free(heap);
}

static void forged_frames(void)
{
    ito_frame_t *a, *b;
    CHECK_OK(ito_frame_create(&a, 1, 512));
    CHECK_OK(ito_frame_create(&b, 1, 512));
    CHECK_OK(ito_entry_set(a, 0, zfn, 2, ITO_MODE_USER));
    /* b's data holds a copy of a's header: a forged frame that looks live */
    unsigned char *data = ito_frame_data(b);
    CHECK(data != NULL);
    memcpy(data, (const void *)ADDR(a), 256);
    unsigned char on_stack[256];
    memcpy(on_stack, (const void *)ADDR(a), sizeof on_stack);
    void *heap = malloc(512);
    CHECK(heap != NULL);
    memcpy(heap, (const void *)ADDR(a), 256);
    uintptr_t forged[] = {
        (uintptr_t)data | TAG(a), (uintptr_t)on_stack | TAG(a), (uintptr_t)heap | TAG(a),
        (ADDR(a) + 16) | TAG(a), (ADDR(a) + 3) | TAG(a), (ADDR(a) + 4096) | TAG(a), 0x1000, 0x7fff00ff0000u,
        (uintptr_t)-64,
    };
    for (size_t i = 0; i < sizeof forged / sizeof forged[0]; i++) {
        ito_frame_t *h = (ito_frame_t *)forged[i];
        CHECK_EQ(ito_continue(h, 0), ITO_EINVAL);
        CHECK_EQ(ito_entry_set(h, 0, zfn, 1, ITO_MODE_USER), ITO_EINVAL);
        CHECK(ito_frame_data(h) == NULL);
        CHECK_EQ(ito_frame_destroy(h), ITO_EINVAL);
    }
    free(heap);
    /* a's count was not touched by any of them */
    CHECK_OK(ito_continue(a, 0));
    CHECK_OK(ito_continue(a, 0));
    while (ito_frame_destroy(a) == ITO_EBUSY) CHECK_OK(ito_yield());
    CHECK_OK(ito_frame_destroy(b));
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

    forged_threads(t);
    forged_frames();

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
