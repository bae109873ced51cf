/* test_zwt_chain: zero-wait threads: a chain of counter-fired threads, fan-in, values,
 * re-arming, a ULT waiting on an entry fired by a ZWT, locks, modes, bad input. */
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito_test.h"

#define N 10000
static _Atomic long hits;
static long order[N];
static _Atomic long pos;

static void link_fn(ito_frame_t *f, int entry, uint64_t v)
{
    order[atomic_fetch_add(&pos, 1)] = entry;
    atomic_fetch_add(&hits, (long)v);
    if (entry + 1 < N) CHECK_OK(ito_continue_value(f, entry + 1, v + 1));
    else CHECK_OK(ito_continue(f, N)); /* the waiter entry */
}

static void join3(ito_frame_t *f, int entry, uint64_t v)
{
    (void)v;
    long *d = ito_frame_data(f);
    d[0]++;
    CHECK_EQ(entry, 0);
    CHECK_OK(ito_continue(f, 1));
}

static void kernel_fn(ito_frame_t *f, int e, uint64_t v) { (void)f; (void)e; (void)v; }
static int kif_rc = 99;
static void kif_fn(ito_frame_t *f, int e, uint64_t v)
{
    (void)e; (void)v;
    kif_rc = ito_continue(f, 0); /* kernel-interface -> kernel: allowed */
    CHECK_OK(ito_continue(f, 2));
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, N + 1, 0));
    for (int i = 0; i < N; i++) CHECK_OK(ito_entry_set(f, i, link_fn, 1, ITO_MODE_USER));
    CHECK_OK(ito_entry_set(f, N, NULL, 1, ITO_MODE_USER));
    CHECK_OK(ito_continue_value(f, 0, 1));
    CHECK_OK(ito_frame_wait(f, N)); /* a ULT blocked until a ZWT fires the entry */
    CHECK_EQ(atomic_load(&pos), N);
    for (int i = 0; i < N; i++) CHECK_EQ(order[i], i); /* a chain runs in order, each once */
    CHECK_EQ(atomic_load(&hits), (long)N * (N + 1) / 2);
    CHECK_EQ(ito_continue(f, 0), ITO_ESTATE);  /* fired and not re-armed */
    CHECK_OK(ito_rearm(f, 0, 0));
    CHECK_EQ(ito_continue(f, N + 1), ITO_ERANGE);
    CHECK_EQ(ito_continue(f, -1), ITO_ERANGE);
    CHECK_EQ(ito_continue(NULL, 0), ITO_EINVAL);
    CHECK_OK(ito_frame_destroy(f));
    CHECK_EQ(ito_continue(f, 0), ITO_EINVAL); /* freed frame */
    CHECK_EQ(ito_frame_destroy(f), ITO_EINVAL);

    /* fan-in 3: fires once, after the third continuation */
    CHECK_OK(ito_frame_create(&f, 2, sizeof(long)));
    CHECK_OK(ito_entry_set(f, 0, join3, 3, ITO_MODE_USER));
    CHECK_OK(ito_entry_set(f, 1, NULL, 1, ITO_MODE_USER));
    CHECK_OK(ito_continue(f, 0));
    CHECK_OK(ito_continue(f, 0));
    CHECK_EQ(((long *)ito_frame_data(f))[0], 0);
    CHECK_OK(ito_continue(f, 0));
    CHECK_OK(ito_frame_wait(f, 1));
    CHECK_EQ(((long *)ito_frame_data(f))[0], 1);
    CHECK_OK(ito_frame_destroy(f));

    /* locks */
    CHECK_OK(ito_frame_create(&f, 3, 0));
    CHECK_OK(ito_trylock(f, 1));
    CHECK_EQ(ito_trylock(f, 1), ITO_EBUSY);
    CHECK_OK(ito_unlock(f, 1));
    CHECK_EQ(ito_unlock(f, 1), ITO_ESTATE);
    /* modes: a user thread (this ULT) may not continue a kernel thread directly */
    CHECK_OK(ito_entry_set(f, 0, kernel_fn, 1, ITO_MODE_KERNEL));
    CHECK_OK(ito_entry_set(f, 1, kif_fn, 1, ITO_MODE_KERNEL_IF));
    CHECK_OK(ito_entry_set(f, 2, NULL, 1, ITO_MODE_USER));
    CHECK_EQ(ito_continue(f, 0), ITO_EPERM);
    CHECK_OK(ito_continue(f, 1));
    CHECK_OK(ito_frame_wait(f, 2));
    CHECK_EQ(kif_rc, ITO_OK);
    CHECK_EQ(ito_entry_set(f, 0, kernel_fn, 0, ITO_MODE_USER), ITO_EINVAL);
    CHECK_EQ(ito_entry_set(f, 0, kernel_fn, 1, 7), ITO_EINVAL);
    CHECK_EQ(ito_frame_create(&f, 0, 0), ITO_EINVAL);
    CHECK_OK(ito_finalize());
    CHECK_EQ(ito_frame_create(&f, 1, 0), ITO_ESTATE);
    TEST_DONE();
}
