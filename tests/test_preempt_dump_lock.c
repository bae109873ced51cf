/* test_preempt_dump_lock: ito_dump_threads writes to the caller's FILE, and a FILE may
 * run the program's own code (a fopencookie stream's write function, a custom stream of a
 * logging library). A signal preemption tick that lands there is "in the program's code"
 * (preempt.h) and switches the ULT out; libito must not hold one of its own locks at that
 * moment.
 *
 * Found by an outside tester, h63e, 2026-12-06: ito_dump_threads printed every ULT's line
 * from inside itoi_ult_foreach, i.e. with the descriptor slabs' lock (slab_lock, a pthread
 * mutex) held. A tick in the cookie's write function switched the dumper out holding it;
 * the next ULT on its worker that took the lock (a second ito_dump_threads, to another
 * FILE; or an ito_create that needed a new slab of descriptors) blocked the worker's
 * kernel thread on the mutex, and the holder, pinned to that worker, never ran again: the
 * worker hung (1 worker, 100 us quantum: every run, 3 of 3, within the first rounds). The
 * same with ITO_PREEMPT_FLAG and a write function built with yield points (ito-cc).
 *
 * Here ULT A dumps into a fopencookie stream whose write function spins (the program's
 * code, long enough for ticks to land in it) while ULT B, on the same worker, dumps into
 * /dev/null, for 0.5 s under a 100 us quantum, with 1 and 2 workers (both ULTs bound to
 * worker 0), in signal mode and in FLAG mode (yield points in the write function). A
 * watchdog (ito_test.h) ends the process with a failure after 60 s (a hang), so that the
 * test never hangs itself. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic int stop;
static _Atomic long a_rounds, b_rounds, cookie_writes;
static int flag_mode; /* ITO_PREEMPT_FLAG: the write function has yield points, as ito-cc places them */

static ssize_t slow_write(void *cookie, const char *buf, size_t size)
{
    (void)cookie;
    (void)buf;
    for (volatile long i = 0; i < 20000; i++) { /* tens of microseconds: ticks land here */
        if (flag_mode && (i & 255) == 0 && ito_coop_flag) ito_coop_yield_abi();
    }
    atomic_fetch_add_explicit(&cookie_writes, 1, memory_order_relaxed);
    return (ssize_t)size;
}

static void *a_body(void *arg)
{
    (void)arg;
    cookie_io_functions_t io = {.write = slow_write};
    FILE *f = fopencookie(NULL, "w", io);
    CHECK(f != NULL);
    setvbuf(f, NULL, _IONBF, 0); /* every fprintf reaches the write function */
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        CHECK_OK(ito_dump_threads(f));
        atomic_fetch_add_explicit(&a_rounds, 1, memory_order_relaxed);
        if (flag_mode && ito_coop_flag) ito_coop_yield_abi(); /* a loop's yield point */
    }
    fclose(f);
    return NULL;
}

static void *b_body(void *arg)
{
    (void)arg;
    FILE *f = fopen("/dev/null", "w");
    CHECK(f != NULL);
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        CHECK_OK(ito_dump_threads(f));
        atomic_fetch_add_explicit(&b_rounds, 1, memory_order_relaxed);
        if (flag_mode && ito_coop_flag) ito_coop_yield_abi(); /* a loop's yield point */
    }
    fclose(f);
    return NULL;
}


static void run(int workers, int mode)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = workers}));
    ito_preempt_config_t pc = {.quantum_us = 100, .mode = mode};
    flag_mode = mode == ITO_PREEMPT_FLAG;
    int rc = ito_preempt_enable(&pc);
    if (!flag_mode && !ITO_TEST_SIGNAL_MODE_OK) { /* the sanitizer trees refuse signal mode (preempt.h) */
        CHECK_EQ(rc, ITO_ENOSYS);
        CHECK_OK(ito_finalize());
        return;
    }
    CHECK_OK(rc);
    atomic_store(&a_rounds, 0);
    atomic_store(&b_rounds, 0);
    ito_test_run_pair_on0(a_body, b_body, 500 * 1000 * 1000ull, &stop);
    CHECK(atomic_load(&a_rounds) > 0 && atomic_load(&b_rounds) > 0);
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_finalize());
}

static atomic_int done_;

int main(void)
{
    /* the failure is a hang: a worker stuck for ever */
    ito_test_watchdog(&done_, 60, "a ULT was switched out in a FILE's write function with a runtime lock held");
    run(1, ITO_PREEMPT_SIGNAL);
    run(2, ITO_PREEMPT_SIGNAL);
    run(1, ITO_PREEMPT_FLAG);
    run(2, ITO_PREEMPT_FLAG);
    atomic_store(&done_, 1);
    TEST_DONE();
}
