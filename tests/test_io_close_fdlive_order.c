/* test_io_close_fdlive_order: ito_close must be ordered after the epoll_ctl(DEL) of a wait
 * on its descriptor that another worker has just ended (a deadline, ito_cancel_io,
 * finalize's cancel pass). The ending worker drops the readiness registration, then
 * takes the record out of its per-descriptor count (fdlive); a closer on another worker
 * that reads the count 0 asks that worker nothing and closes at once. The count was
 * lowered with a relaxed store, so nothing ordered the DEL before the close: TSan
 * reported the data race on the descriptor (close in ito_close against epoll_ctl in
 * itoi_ready_drop), first seen racing finalize's cancel pass (test_h65c_close_cancel,
 * about once in 500 cycles). Here a deadline ends the wait on worker 0 while a ULT on
 * worker 1 closes the descriptor right after the deadline, in a loop; run in the TSan
 * tree it reported the race in 3 of 3 runs before the fix (the count is now lowered with
 * a release store, which the closer's acquire load pairs with). Outside TSan it checks
 * the results: the waiter ends with ETIMEDOUT or EBADF, the close returns 0.
 * Found by an outside tester, h65c, 2026-12-06.
 * The closer starts its clock once the wait is registered (the test's own wrapper of
 * epoll_ctl sees the ADD): a waiter whose worker was off its CPU past the deadline began
 * its receive on a descriptor being closed, the test's own race, which TSan reported
 * (the call's fstat against the close) in 1 of 6-10 runs at load 15 with a 5 ms
 * deadline (h71d) and still in 3 of 12 at 15 ms (h72b, 2026-12-07). That orders the
 * wait's start before the close, not its end, which is what this test is about. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int sv[2];
static _Atomic uint64_t deadline; /* set by the waiter as it starts (0: not yet) */
static atomic_int a_res, b_res;
static atomic_int watch_fd = -1, added; /* the wait on watch_fd is registered */
static atomic_int raced;                /* rounds whose close came while the wait was registered */

int __real_epoll_ctl(int ep, int op, int fd, struct epoll_event *ev);
int __wrap_epoll_ctl(int ep, int op, int fd, struct epoll_event *ev)
{
    int rc = __real_epoll_ctl(ep, op, fd, ev);
    if (rc == 0 && op == EPOLL_CTL_ADD && fd == atomic_load(&watch_fd)) atomic_store(&added, 1);
    return rc;
}

static void *waiter(void *p)
{
    (void)p;
    char c;
    uint64_t d = ito_deadline_in(15000000);
    atomic_store(&deadline, d); /* the closer starts from here: before the wait, so this
                                 * orders nothing of the wait's end before the close */
    ito_io_deadline(d);
    ssize_t n = ito_recv(sv[0], &c, 1, 0);
    int e = errno;
    ito_io_deadline(ITO_FOREVER);
    atomic_store(&a_res, n == -1 && (e == ETIMEDOUT || e == EBADF) ? 1 : 100 + e);
    return NULL;
}

static void *closer(void *p)
{
    uint64_t d;
    while ((d = atomic_load(&deadline)) == 0) { }
    /* the wait registered, or the receive over without one (it began past its deadline) */
    while (!atomic_load(&added) && atomic_load(&a_res) == 0) { }
    if (atomic_load(&added)) atomic_fetch_add(&raced, 1);
    uint64_t at = d + (uint64_t)(uintptr_t)p;
    while (ito_now_ns() < at) { /* no yield, no sync with worker 0 */ }
    atomic_store(&b_res, ito_close(sv[0]) == 0 ? 1 : 200 + errno);
    return NULL;
}


int main(void)
{
    /* the sync backend: a receive waits in the worker's epoll (io_uring's has no DEL) */
    CHECK_OK(setenv("ITO_WSC_BACKEND", "sync", 1));
    ito_config_t cfg = {.workers = 2};
    CHECK_OK(ito_init(&cfg));
    for (int k = 0; k < 2; k++) ito_test_warm_worker(k); /* each worker's epoll and eventfd now */
    for (int i = 0; i < 300; i++) {
        CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
        atomic_store(&deadline, 0);
        atomic_store(&a_res, 0);
        atomic_store(&added, 0);
        atomic_store(&watch_fd, sv[0]);
        ito_thread_t ta, tb;
        ito_test_create_on(&ta, 0, waiter, NULL);
        ito_test_create_on(&tb, 1, closer, (void *)(uintptr_t)(20000 + (i % 20) * 10000));
        CHECK_OK(ito_join(ta, NULL));
        CHECK_OK(ito_join(tb, NULL));
        if (atomic_load(&a_res) != 1 || atomic_load(&b_res) != 1) {
            fprintf(stderr, "round %d: waiter %d closer %d\n", i, atomic_load(&a_res), atomic_load(&b_res));
            CHECK(0);
        }
        close(sv[1]);
    }
    CHECK(atomic_load(&raced) > 0); /* the wrapper saw the waits: the test tested something */
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
