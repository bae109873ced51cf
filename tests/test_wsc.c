/* test_wsc: split-phase system calls and WSC, in both backends: thresholds and buckets,
 * every request reaching its continuation exactly once, errors (-EBADF), a closed
 * peer, a full socket buffer, a short read, nothing lost at finalize. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define NREQ 1000
static _Atomic long fired, sum;
static long results[NREQ];

static void on_done(ito_frame_t *f, int entry, uint64_t v)
{
    (void)f;
    CHECK_EQ((long)v, results[entry]);
    /* sum before fired: the waiter reads sum as soon as fired reaches NREQ, and the last
     * continuation may run on another worker (the other order failed 2 runs in 200). */
    atomic_fetch_add(&sum, entry);
    atomic_fetch_add(&fired, 1);
}

static void *reader(void *arg)
{
    int fd = (int)(intptr_t)arg;
    static char buf[1 << 16];
    long total = 0;
    for (;;) {
        ssize_t n = ito_recv(fd, buf, sizeof buf, 0);
        CHECK(n >= 0);
        if (n == 0) break;
        total += n;
    }
    return (void *)total;
}

static void run_backend(const char *backend)
{
    setenv("ITO_WSC_BACKEND", backend, 1);
    CHECK_OK(ito_init(NULL));
    int want = !strcmp(backend, "uring") ? ITO_WSC_URING : ITO_WSC_SYNC;
    CHECK_EQ(ito_wsc_backend(), want);

    /* Threshold: K-1 NOPs stay buffered, the K-th crosses once for all. */
    CHECK_OK(ito_wsc_set_threshold(8));
    ito_wsc_stats_t s0, s1;
    CHECK_OK(ito_wsc_stats(&s0));
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, NREQ + 1, 0));
    for (int i = 0; i < NREQ; i++) CHECK_OK(ito_entry_set(f, i, on_done, 1, ITO_MODE_USER));
    atomic_store(&fired, 0);
    atomic_store(&sum, 0);
    for (int i = 0; i < 7; i++) {
        ito_sysreq_t q = {.op = ITO_SYS_NOP, .result = &results[i], .frame = f, .entry = i};
        CHECK_OK(ito_sys_post(&q));
    }
    CHECK_OK(ito_wsc_stats(&s1));
    CHECK_EQ(s1.crossings - s0.crossings, 0); /* all 7 buffered */
    ito_sysreq_t q7 = {.op = ITO_SYS_NOP, .result = &results[7], .frame = f, .entry = 7};
    CHECK_OK(ito_sys_post(&q7));
    CHECK_OK(ito_wsc_stats(&s1));
    if (want == ITO_WSC_URING) CHECK_EQ(s1.crossings - s0.crossings, 1); /* one submit for the bucket */
    else CHECK_EQ(s1.crossings - s0.crossings, 8);                     /* the fallback: one each */
    /* Many requests, thin calls mixed in, odd count (the last bucket goes at idle). */
    for (int i = 8; i < NREQ; i++) {
        ito_sysreq_t q = {.op = i % 3 ? ITO_SYS_NOP : ITO_SYS_GETPID, .result = &results[i], .frame = f,
                          .entry = i};
        CHECK_OK(ito_sys_post(&q));
    }
    while (atomic_load(&fired) < NREQ) ito_yield();
    CHECK_EQ(atomic_load(&fired), NREQ);
    CHECK_EQ(atomic_load(&sum), (long)NREQ * (NREQ - 1) / 2);
    for (int i = 0; i < NREQ; i++) CHECK_EQ(results[i], i % 3 || i < 8 ? 0 : (long)getpid());

    /* Errors propagate: a bad fd gives -EBADF to the continuation and EBADF to a ULT. */
    CHECK_OK(ito_wsc_set_threshold(1));
    long r = 0;
    char b[16];
    ito_sysreq_t bad = {.op = ITO_SYS_READ, .fd = 9999, .buf = b, .len = sizeof b, .result = &r};
    CHECK_OK(ito_sys_post(&bad));
    CHECK_OK(ito_wsc_flush());
    for (int i = 0; i < 100000 && r == 0; i++) ito_yield();
    CHECK_EQ(r, -EBADF);
    errno = 0;
    CHECK_EQ(ito_read(9999, b, sizeof b), -1);
    CHECK_EQ(errno, EBADF);
    CHECK_EQ(ito_getpid(), getpid());

    /* Short read, closed peer, full socket buffer. */
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    CHECK_EQ(ito_send(sv[0], "0123456789", 10, 0), 10);
    char rb[100];
    CHECK_EQ(ito_recv(sv[1], rb, sizeof rb, 0), 10); /* short read: what is there */
    CHECK(memcmp(rb, "0123456789", 10) == 0);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, reader, (void *)(intptr_t)sv[1], NULL));
    static char big[1 << 20];
    long sent = 0;
    for (int i = 0; i < 8; i++) { /* 8 MiB through a socket buffer of far less: sends wait */
        ssize_t n = ito_send(sv[0], big, sizeof big, 0);
        CHECK(n > 0);
        sent += n;
    }
    CHECK_EQ(ito_close(sv[0]), 0); /* the reader then sees the closed peer: recv returns 0 */
    void *got;
    CHECK_OK(ito_join(t, &got));
    CHECK_EQ((long)got, sent);
    close(sv[1]);

    /* Nothing lost at finalize: requests still buffered are flushed and completed. */
    CHECK_OK(ito_wsc_set_threshold(64));
    atomic_store(&fired, 0);
    for (int i = 0; i < 10; i++) {
        CHECK_OK(ito_rearm(f, i, 1));
        ito_sysreq_t q = {.op = ITO_SYS_NOP, .result = &results[i], .frame = f, .entry = i};
        CHECK_OK(ito_sys_post(&q));
    }
    CHECK_OK(ito_finalize());
    CHECK_EQ(atomic_load(&fired), 10);
    /* bad input */
    CHECK_EQ(ito_sys_post(NULL), ITO_EINVAL);
    unsetenv("ITO_WSC_BACKEND");
}

int main(void)
{
    CHECK_EQ(ito_wsc_set_threshold(0), ITO_EINVAL);
    CHECK_EQ(ito_wsc_set_threshold(65), ITO_EINVAL);
    CHECK_EQ(ito_wsc_set_latency_us(2000000), ITO_EINVAL);
    run_backend("uring");
    run_backend("sync");
    TEST_DONE();
}
