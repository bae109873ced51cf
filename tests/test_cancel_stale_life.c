/* test_cancel_stale_life: ito_cancel_io through a stale handle (its thread ended
 * detached) cancels nothing (syscall.h: ITO_EJOINED for a thread that has ended), also
 * when the descriptor has meanwhile been reused by a new ULT: that ULT's next blocking
 * wrapper must not fail with ECANCELED. Before, ito_cancel_io checked the handle and then
 * stored io_cancel = 1 as two steps, and a canceller preempted in between marked the new
 * life (found by an outside tester's stress, 2026-12-05). Now io_cancel holds the
 * generation of the life it cancels.
 *
 * As test_join_stale_life: the process runs on one CPU, so that the kernel preempts the
 * canceller's worker inside ito_cancel_io while the other worker lets T end and creates X
 * on its descriptor; X reads a byte that is there (nothing may cancel that read). */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic(ito_thread_t) stale;
static _Atomic int stop;
static _Atomic long spurious, rounds;
static int p[2];

static void *x_fn(void *a)
{
    (void)a;
    char c = 'x';
    CHECK(write(p[1], &c, 1) == 1);
    ito_test_spin(3000); /* X's life before its call: where a stale cancellation would land */
    ssize_t n = ito_read(p[0], &c, 1); /* a byte is there: only a cancellation fails it */
    if (n != 1) {
        CHECK(errno == ECANCELED);
        atomic_fetch_add(&spurious, 1);
    }
    return NULL;
}

static void *canceller(void *a)
{
    (void)a;
    while (!atomic_load(&stop)) {
        ito_thread_t h = atomic_load(&stale);
        if (!h) continue;
        int rc = ito_cancel_io(h);
        CHECK(rc == ITO_OK || rc == ITO_EJOINED);
    }
    return NULL;
}

/* X on T's descriptor (ito_test_stale_churn) */
static void reuse(const ito_attr_t *bound)
{
    ito_thread_t x;
    CHECK_OK(ito_create(&x, x_fn, NULL, bound));
    CHECK_OK(ito_join(x, NULL));
}
static int failed(void) { return atomic_load(&spurious) != 0; }

int main(void)
{
    cpu_set_t all;
    ito_test_pin_first_cpu(&all); /* the workers inherit it */
    CHECK(pipe(p) == 0);
#if defined(ITOI_TSAN) || defined(ITOI_ASAN)
    double secs = 5;
#else
    double secs = 6;
#endif
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    ito_attr_t a;
    ito_attr_init(&a);
    ito_thread_t c, j;
    a.worker = 1;
    CHECK_OK(ito_create(&j, canceller, NULL, &a));
    a.worker = 0;
    ito_test_churn_t churn = {secs, NULL, reuse, failed, &stale, &rounds, &stop};
    CHECK_OK(ito_create(&c, ito_test_stale_churn, &churn, &a));
    CHECK_OK(ito_join(c, NULL));
    CHECK_OK(ito_join(j, NULL));
    CHECK_OK(ito_finalize());
    printf("%ld rounds, reads of the new thread cancelled %ld\n", atomic_load(&rounds), atomic_load(&spurious));
    CHECK_EQ(atomic_load(&spurious), 0);
    CHECK(sched_setaffinity(0, sizeof all, &all) == 0);
    close(p[0]);
    close(p[1]);
    TEST_DONE();
}
