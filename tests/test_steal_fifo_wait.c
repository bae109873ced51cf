/* test_steal_fifo_wait: a yield keeps its place in the FIFO while an idle worker steals.
 * Two workers; main (on worker 0) creates 4,000 unbound ULTs that each yield 40 times,
 * while a ULT bound to worker 1 keeps that one busy; then worker 1 goes idle and steals
 * batches of them whenever it runs out. The ones that stay on worker 0 must still see
 * each other in FIFO order: between a yield on worker 0 and the next run of the same ULT
 * on worker 0, at most about as many other runs on worker 0 as there are ULTs living
 * there (the bound leaves room for one look, 64 points, in the steal queue, and for a
 * count of live ULTs that lags migrations by one run). Counted in runs, not time; three
 * experiments. Until the fix, the units worker 0 had published for thieves and nobody
 * took went back to the tail of its queue at the next look (reclaim), behind everything
 * that had yielded after them (a full extra round each time), and the same batch was
 * published again at once, the worker running one of them per look while no thief came:
 * waits of up to 17 rounds, 18 of 20 runs failed. Put back at the head but published
 * again at once, 17 of 20 still failed (published from behind them instead, a unit at
 * the boundary was passed at every look). */
#define _GNU_SOURCE
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito_test.h"

#define N 4000
#define ROUNDS 40
#define BOUND 128 /* other runs beyond the live count, per wait */
#define REPEAT 3  /* experiments (before the fix, about every other one failed) */

static _Atomic long runs0;  /* yielder runs on worker 0 */
static _Atomic long live0;  /* yielders whose last run was on worker 0 (or not run yet) */
static _Atomic long worst;  /* the largest excess seen */
static _Atomic long over;   /* waits over BOUND */
static _Atomic long measured;
static _Atomic int spinning, go;

/* Keeps worker 1 busy (not idle, so not asking for work) while main creates the
 * yielders: they all start on worker 0's queue. */
static void *spinner(void *unused)
{
    (void)unused;
    atomic_store(&spinning, 1);
    while (!atomic_load(&go)) ;
    return NULL;
}

static void *yielder(void *unused)
{
    (void)unused;
    int last = 0;     /* created on worker 0 */
    long mark = -1;   /* runs0 at my previous run on worker 0, -1: none to compare */
    long alive = 0;   /* live0 when I yielded */
    for (int r = 0; r <= ROUNDS; r++) {
        int w = ito_worker_id();
        CHECK(w >= 0);
        if (last == 0 && w != 0) atomic_fetch_sub_explicit(&live0, 1, memory_order_relaxed);
        if (last != 0 && w == 0) atomic_fetch_add_explicit(&live0, 1, memory_order_relaxed);
        if (w == 0) {
            long now = atomic_fetch_add_explicit(&runs0, 1, memory_order_relaxed);
            if (last == 0 && mark >= 0) {
                long excess = (now - mark - 1) - alive;
                long old = atomic_load_explicit(&worst, memory_order_relaxed);
                while (excess > old &&
                       !atomic_compare_exchange_weak_explicit(&worst, &old, excess, memory_order_relaxed,
                                                              memory_order_relaxed))
                    ;
                if (excess > BOUND) atomic_fetch_add_explicit(&over, 1, memory_order_relaxed);
                atomic_fetch_add_explicit(&measured, 1, memory_order_relaxed);
            }
            mark = now;
            alive = atomic_load_explicit(&live0, memory_order_relaxed);
        } else {
            mark = -1;
        }
        last = w;
        if (r < ROUNDS) CHECK_OK(ito_yield());
    }
    if (last == 0) atomic_fetch_sub_explicit(&live0, 1, memory_order_relaxed);
    return NULL;
}

/* One experiment: init, the spinner, the yielders, finalize. */
static void experiment(void)
{
    atomic_store(&spinning, 0);
    atomic_store(&go, 0);
    atomic_store(&runs0, 0);
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_EQ(ito_worker_id(), 0);
    ito_attr_t at;
    CHECK_OK(ito_attr_init(&at));
    at.stack_size = 16384;
    static ito_thread_t t[N];
    ito_thread_t sp;
    at.worker = 1;
    CHECK_OK(ito_create(&sp, spinner, NULL, &at));
    while (!atomic_load(&spinning)) ;
    at.worker = -1;
    atomic_store(&live0, N);
    for (int i = 0; i < N; i++) CHECK_OK(ito_create(&t[i], yielder, NULL, &at));
    atomic_store(&go, 1); /* worker 1 goes idle and starts stealing */
    CHECK_OK(ito_join(sp, NULL));
    for (int i = 0; i < N; i++) CHECK_OK(ito_join(t[i], NULL));
    ito_stats_t st;
    CHECK_OK(ito_stats(&st));
    CHECK_OK(ito_finalize());
    CHECK_EQ(atomic_load(&live0), 0);
    printf("%ld waits measured on worker 0 so far, %ld over the bound (%d), the worst %ld runs beyond the live "
           "count; %llu units stolen\n",
           atomic_load(&measured), atomic_load(&over), BOUND, atomic_load(&worst), (unsigned long long)st.steals);
}

int main(void)
{
    for (int i = 0; i < REPEAT; i++) experiment();
    CHECK(atomic_load(&measured) > N); /* worker 0 kept many of them */
    CHECK_EQ(atomic_load(&over), 0);
    TEST_DONE();
}
