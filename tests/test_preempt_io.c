/* test_preempt_io: with preemption on and ULTs that never block (they only switch when a
 * tick asks), a ULT waiting in a wrapper is served within a few ticks, on both backends.
 * Beside CPU-bound ULTs the ticks are a worker's only scheduling points, and the
 * scheduler context (which reaps completions, flushes buffered requests, polls ready
 * descriptors and fires timers) used to be visited only at every 64th: each wait of an
 * I/O ULT took about 64 quanta (a server on the wrappers beside three CPU-bound ULTs at a
 * 1 ms quantum served 17 connections a second on io_uring; here 126 ticks per round trip,
 * now 3-6). A scheduling point a tick asks for now looks at those sources at once.
 *
 * The same held for what other threads post (the inbox: a ULT that a foreign thread
 * wakes through a channel waited up to 64 ticks, 38 at the median, in part 2).
 *
 * One worker, FLAG mode (runs in all three trees), 1 ms quantum: two spinners that only
 * pass co-operative points, and (part 1) a ULT that sends a byte through a pipe to a
 * foreign thread and waits in ito_read for its answer, 30 times; (part 2) a ULT that
 * receives from a channel what a foreign thread sends every 3 ms, 30 items. Counted in ticks
 * (ito_preempt_stats), not in time: the median round trip must take at most 40 ticks,
 * a third of the 126 before (a descheduled worker takes fewer ticks, never more: a
 * pending tick signal is one; a loaded machine that makes the echo thread wait for a CPU
 * adds a few). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "ito/channel.h"
#include "ito/ito.h"
#include "ito_test.h"

#define TRIPS 30

static _Atomic int stop;
static ito_test_spinner_t spin[2] = {{.stop = &stop}, {.stop = &stop}};
static int to_echo[2], from_echo[2];
static uint64_t trip_ticks[TRIPS];

static void *echo(void *arg)
{
    (void)arg;
    char c;
    while (read(to_echo[0], &c, 1) == 1)
        if (write(from_echo[1], &c, 1) != 1) break;
    return NULL;
}

static void *pinger(void *arg)
{
    (void)arg;
    for (int i = 0; i < TRIPS; i++) {
        char c = (char)i, back = 0;
        uint64_t t0 = ito_test_pstats().ticks;
        CHECK_EQ(ito_write(to_echo[1], &c, 1), 1);
        CHECK_EQ(ito_read(from_echo[0], &back, 1), 1);
        CHECK_EQ(back, c);
        trip_ticks[i] = ito_test_pstats().ticks - t0;
    }
    return NULL;
}

static ito_chan_t *chan;

static void *sender(void *arg) /* a foreign thread: each item is the tick count when sent */
{
    (void)arg;
    for (int i = 0; i < TRIPS; i++) {
        usleep(3000);
        uint64_t t = ito_test_pstats().ticks;
        while (ito_chan_try_send(chan, &t) != ITO_OK) usleep(100);
    }
    return NULL;
}

static void *receiver(void *arg)
{
    (void)arg;
    for (int i = 0; i < TRIPS; i++) {
        uint64_t sent;
        CHECK_OK(ito_chan_recv(chan, &sent));
        trip_ticks[i] = ito_test_pstats().ticks - sent;
    }
    return NULL;
}

/* Start a 1-worker runtime with FLAG preemption (1 ms) and run fn in a ULT beside the
 * two spinners until it returns; then stop them and the runtime. before(): what to
 * start once the runtime runs (a foreign thread), may be NULL. */
static void beside_spinners(void *(*fn)(void *), void (*before)(void))
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    ito_preempt_config_t cfg = {.quantum_us = 1000, .mode = ITO_PREEMPT_FLAG};
    CHECK_OK(ito_preempt_enable(&cfg));
    atomic_store(&stop, 0);
    ito_thread_t s0, s1, t;
    CHECK_OK(ito_create(&s0, ito_test_coop_spin, &spin[0], NULL));
    CHECK_OK(ito_create(&s1, ito_test_coop_spin, &spin[1], NULL));
    CHECK_OK(ito_create(&t, fn, NULL, NULL));
    if (before) before();
    CHECK_OK(ito_join(t, NULL));
    atomic_store(&stop, 1);
    CHECK_OK(ito_join(s0, NULL));
    CHECK_OK(ito_join(s1, NULL));
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_finalize());
}

static pthread_t sender_thread;

static void start_sender(void) { CHECK_EQ(pthread_create(&sender_thread, NULL, sender, NULL), 0); }

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The tick counts' spread; the median must stay at or below limit. */
static void check_ticks(const char *what, uint64_t limit)
{
    qsort(trip_ticks, TRIPS, sizeof trip_ticks[0], cmp_u64);
    printf("%s: ticks min %llu median %llu max %llu\n", what, (unsigned long long)trip_ticks[0],
           (unsigned long long)trip_ticks[TRIPS / 2], (unsigned long long)trip_ticks[TRIPS - 1]);
    CHECK(trip_ticks[TRIPS / 2] <= limit);
}

int main(void)
{
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++) {
        setenv("ITO_WSC_BACKEND", ito_test_backends[b], 1);
        CHECK_EQ(pipe(to_echo), 0);
        CHECK_EQ(pipe(from_echo), 0);
        pthread_t e;
        CHECK_EQ(pthread_create(&e, NULL, echo, NULL), 0);
        beside_spinners(pinger, NULL);
        close(to_echo[1]); /* the echo thread ends */
        CHECK_EQ(pthread_join(e, NULL), 0);
        close(to_echo[0]);
        close(from_echo[0]);
        close(from_echo[1]);
        check_ticks(b == 0 ? "uring, a pipe round trip" : "sync, a pipe round trip", 40);
    }
    unsetenv("ITO_WSC_BACKEND");

    /* Part 2: a wake-up from a foreign thread (the worker's inbox). */
    CHECK_OK(ito_chan_create(&chan, sizeof(uint64_t), 4));
    beside_spinners(receiver, start_sender);
    CHECK_EQ(pthread_join(sender_thread, NULL), 0); /* it has sent everything: the receiver got it all */
    CHECK_OK(ito_chan_destroy(chan));
    check_ticks("a foreign thread's wake-up, send to receive", 16);
    TEST_DONE();
}
