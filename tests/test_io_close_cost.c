/* test_io_close_cost: ito_close asks only the workers that may hold a request on its fd.
 * It used to ask every other worker with any live request at all, and park until each had
 * scanned its whole live list: an echo server on two workers closing 3,000 connections
 * made 124 switches per connection (6 with one worker), the closers holding the 64
 * `closing` slots while parked and the others yield-spinning for a slot (found with
 * callgrind, 2026-12-02). Here worker 1 holds WAITERS ULTs parked in ito_recv, and a ULT
 * on worker 0 creates and ito_closes CLOSES unrelated sockets: the closes must not cost a
 * switch each (they cost none now; the bound leaves room for the runtime's own visits).
 * Then the other side of the rule: ito_close of a descriptor a worker-1 ULT waits on still
 * wakes it (EBADF), and every untouched waiter still gets its byte. Both backends. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define WAITERS 64
#define CLOSES 500

static int sv[WAITERS + 1][2];
static ito_test_recv_wait_t wait_on[WAITERS + 1];
static _Atomic int parked;

static void *closer(void *arg)
{
    (void)arg;
    for (int k = 0; k < CLOSES; k++) {
        int p[2];
        CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, p), 0);
        CHECK_EQ(ito_close(p[0]), 0);
        CHECK_EQ(close(p[1]), 0);
    }
    return NULL;
}

static void *close_watched(void *arg)
{
    (void)arg;
    CHECK_EQ(ito_close(sv[WAITERS][0]), 0); /* a worker-1 ULT waits on it */
    return NULL;
}

static void round_on(const char *backend)
{
    atomic_store(&parked, 0);
    ito_thread_t t[WAITERS + 1], c;
    ito_attr_t a;
    ito_attr_init(&a);
    a.worker = 1;
    for (int i = 0; i <= WAITERS; i++) {
        CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]), 0);
        wait_on[i] = (ito_test_recv_wait_t){.fd = sv[i][0], .parked = &parked};
        CHECK_OK(ito_create(&t[i], ito_test_recv_waiter, &wait_on[i], &a));
    }
    while (atomic_load(&parked) < WAITERS + 1) ito_sleep_ns(1000000);
    ito_sleep_ns(20000000); /* into their receives */
    a.worker = 0;
    uint64_t s0 = ito_test_switches();
    CHECK_OK(ito_create(&c, closer, NULL, &a));
    CHECK_OK(ito_join(c, NULL));
    uint64_t ds = ito_test_switches() - s0;
    printf("%s: %d closes beside %d waits on the other worker: %llu switches\n", backend, CLOSES, WAITERS + 1,
           (unsigned long long)ds);
    CHECK(ds < CLOSES / 5); /* was >= 2 per close */
    CHECK_OK(ito_create(&c, close_watched, NULL, &a));
    CHECK_OK(ito_join(c, NULL));
    CHECK_OK(ito_join(t[WAITERS], NULL));
    CHECK_EQ(atomic_load(&wait_on[WAITERS].got), 2); /* woken by the close: EBADF */
    close(sv[WAITERS][1]);
    for (int i = 0; i < WAITERS; i++) CHECK_EQ(write(sv[i][1], "x", 1), 1);
    for (int i = 0; i < WAITERS; i++) {
        CHECK_OK(ito_join(t[i], NULL));
        CHECK_EQ(atomic_load(&wait_on[i].got), 1);
        close(sv[i][0]);
        close(sv[i][1]);
    }
}

int main(void)
{
    ito_test_each_backend(2, round_on);
    TEST_DONE();
}
