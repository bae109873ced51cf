/* test_stack_handback: an ending ULT's stack goes back to a pool other workers take from
 * only once nothing runs on it.
 *
 * The bug (found 2026-11-27 by test_fault failing about once in a thousand runs under
 * load; present since stacks were given back by the exit path itself): the exit path
 * gave the ending ULT's stack back and then resumed the next context, still running on
 * that stack in between. A stack of the default class stayed in the worker's own pool,
 * which no other thread takes from, but one of another class (a 20 KiB stack, say) went
 * straight to the class's global list, as did a batch of default stacks when the pool
 * passed its high mark. Another worker could start a ULT on it at once and overwrite
 * the exiting context's last frame: when the exiting worker had been preempted in that
 * window, it resumed a wrong context, and a joined ULT came back DONE without having run
 * (its value NULL) or the process crashed.
 *
 * A race of a few instructions cannot be hit on demand; stack.c checks the invariant
 * instead (giving a stack to a global list while running on it aborts the process), so
 * this test fails every time the exit path breaks the rule: every way of ending (return,
 * ito_exit, detached, joined or not yet) with stacks of several classes, on two workers,
 * and the default class past its pool's high mark (many ULTs end on one worker). */
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#define N 600 /* more than the default class's pool holds on one worker (POOL_HIGH 256) */

static const size_t sizes[] = {0, 16 * 1024, 20 * 1024, 64 * 1024, 128 * 1024};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static atomic_int ended;
static ito_sem_t gate;

static void *ret_arg(void *a) { return a; }

static void *exit_arg(void *a)
{
    ito_exit(a);
    return NULL; /* not reached */
}

static void *count_end(void *a)
{
    (void)a;
    atomic_fetch_add(&ended, 1);
    return NULL;
}

static void *wait_gate(void *a)
{
    CHECK_OK(ito_sem_wait(&gate));
    return a;
}

static ito_thread_t t[N];

/* Create N ULTs with stacks of every class in turn, then join them all. */
static void round_of(ito_fn_t fn)
{
    for (int i = 0; i < N; i++) {
        ito_attr_t a;
        CHECK_OK(ito_attr_init(&a));
        a.stack_size = sizes[i % NSIZES];
        CHECK_OK(ito_create(&t[i], fn, (void *)(intptr_t)(i + 1), &a));
    }
    for (int i = N - 1; i >= 0; i--) { /* the newest first: the others run meanwhile */
        void *r;
        CHECK_OK(ito_join(t[i], &r));
        CHECK_EQ((intptr_t)r, i + 1);
    }
}

int main(void)
{
    ito_config_t cfg = {.workers = 2};
    CHECK_OK(ito_init(&cfg));
    for (int rep = 0; rep < 5; rep++) {
        round_of(ret_arg);
        round_of(exit_arg);
    }

    /* Detached, every class. */
    atomic_store(&ended, 0);
    for (int i = 0; i < N; i++) {
        ito_attr_t a;
        CHECK_OK(ito_attr_init(&a));
        a.stack_size = sizes[i % NSIZES];
        a.flags = ITO_ATTR_DETACHED;
        CHECK_OK(ito_create(NULL, count_end, NULL, &a));
    }
    while (atomic_load(&ended) < N) CHECK_OK(ito_yield());

    /* N default stacks attached at once (all wait), then all end one after another on
     * one worker: its pool passes the high mark and moves batches to the global list. */
    CHECK_OK(ito_sem_init(&gate, 0));
    ito_attr_t one;
    CHECK_OK(ito_attr_init(&one));
    one.worker = 1;
    for (int i = 0; i < N; i++) CHECK_OK(ito_create(&t[i], wait_gate, (void *)(intptr_t)(i + 1), &one));
    for (int i = 0; i < N; i++) CHECK_OK(ito_sem_post(&gate));
    for (int i = 0; i < N; i++) {
        void *r;
        CHECK_OK(ito_join(t[i], &r));
        CHECK_EQ((intptr_t)r, i + 1);
    }
    CHECK_OK(ito_sem_destroy(&gate));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
