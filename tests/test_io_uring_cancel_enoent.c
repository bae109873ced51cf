/* test_io_uring_cancel_enoent: an I/O deadline ends a read on a socket that nobody writes
 * even when io_uring's cancellation of the read finds nothing the first time (both
 * backends; 1 worker).
 *
 * 1. Deterministic: ITO_FAULT_CANCEL_MISS=1 (then 2) sends ito's first (second) ASYNC_CANCEL
 *    as a NOP that answers -ENOENT and leaves the read running (kernel 6.10 or later; the
 *    sync backend sends no cancel and just times out). A ULT reads an idle socket, once
 *    with a deadline already passed (ito_deadline_in(0): a try, ito/time.h) and once with
 *    one 2 ms ahead; both reads must fail with ETIMEDOUT.
 * 2. The kernel's own window, by repetition: a ULT reads a unix stream socket in a loop,
 *    each call with a deadline already passed, while a foreign thread writes one byte into
 *    the other end and at once takes it back with a non-blocking receive on the ULT's end.
 *    Every read returns the byte or fails with ETIMEDOUT, and no byte is lost or read twice
 *    (written = read by the ULT + read by the thread + left).
 * A watchdog fails the test if a read makes no progress for 5 s (a read waiting for ever).
 *
 * Regression test for the hang of fuzz_io in the clean-clone CI (about 1 run in 6; a read of
 * the socket pair with deadline 0 on worker 1, its worker asleep with no timer): the read
 * is queued, its deadline's timer fires before the flush, and the ASYNC_CANCEL goes in the
 * same io_uring_enter right behind it. When the byte arrived between the read's
 * non-blocking attempt and the arming of its poll, io_uring queued the read as task work to
 * be issued again (IO_APOLL_READY), and in that window the cancel finds nothing (-ENOENT).
 * Another reader took the byte, the reissued read armed its poll again and waited for ever:
 * ito took the cancel as delivered and the ULT's timer was gone. Found and diagnosed by an
 * outside tester, h67a, 2026-12-06 (fuzz_io on its input repeated in one process: a hang
 * after 205 to 1,110 runs, 6 times of 6; none in 20,000 runs with the fix). Part 1 hung
 * every time without the fix (3 of 3 with MISS=1, 1 of 1 with MISS=2); part 2 never hung in
 * about 10 runs without it (the window is about a microsecond unless the worker is
 * preempted at the end of its io_uring_enter, as under the CI's load): it is kept for the
 * real kernel path and its byte count. Now a cancel that finds nothing is sent again while
 * its request is still in the kernel (uring.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define ROUND_NS 1000000000ull /* how long each backend's race (part 2) runs */

static int sp[2];
static _Atomic int stop, done_reading;
static _Atomic long wrote, got_ult, got_thread, reads;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Writes a byte into sp[1] and takes it back from sp[0] at once. */
static void *flicker(void *arg)
{
    (void)arg;
    unsigned char b = 1, in[64];
    while (!atomic_load(&stop)) {
        if (send(sp[1], &b, 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1) atomic_fetch_add(&wrote, 1);
        ssize_t n = recv(sp[0], in, sizeof in, MSG_DONTWAIT);
        if (n > 0) atomic_fetch_add(&got_thread, n);
    }
    return NULL;
}

/* Fails the test if the reader stops making progress. */
static void *watchdog(void *arg)
{
    (void)arg;
    long seen = -1;
    int still = 0;
    while (!atomic_load(&done_reading)) {
        usleep(100000);
        long r = atomic_load(&reads);
        still = r == seen ? still + 1 : 0;
        seen = r;
        if (still >= 50) {
            fprintf(stderr, "FAIL: a read with a deadline has waited over 5 s (%ld reads done)\n", r);
            fflush(stderr);
            _exit(1);
        }
    }
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    unsigned char buf[64];
    uint64_t end = now_ns() + ROUND_NS;
    while (now_ns() < end) {
        CHECK_OK(ito_io_deadline(ito_deadline_in(0)));
        ssize_t n = ito_read(sp[0], buf, sizeof buf);
        if (n < 0) CHECK_EQ(errno, ETIMEDOUT);
        else atomic_fetch_add(&got_ult, n);
        atomic_fetch_add(&reads, 1);
    }
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    return NULL;
}

/* Part 1: reads of an idle socket, the first cancellation missing (ITO_FAULT_CANCEL_MISS). */
static void *idle_reads(void *arg)
{
    (void)arg;
    unsigned char buf[16];
    static const uint64_t dl[2] = {0, 2000000};
    for (int i = 0; i < 2; i++) {
        CHECK_OK(ito_io_deadline(ito_deadline_in(dl[i])));
        CHECK_EQ(ito_read(sp[0], buf, sizeof buf), -1);
        CHECK_EQ(errno, ETIMEDOUT);
        atomic_fetch_add(&reads, 1);
    }
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    return NULL;
}

/* Whether the kernel can inject a NOP's result (6.10 or later): ITO_FAULT_CANCEL_MISS needs it. */
static int nop_inject_ok(void)
{
    struct utsname u;
    int major = 0, minor = 0;
    if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &major, &minor) != 2) return 0;
    return major > 6 || (major == 6 && minor >= 10);
}

static void missed_cancel(const char *backend)
{
    if (!strcmp(backend, "uring") && !nop_inject_ok()) {
        printf("the kernel cannot inject a NOP's result: part 1 skipped on io_uring\n");
        return;
    }
    for (int miss = 1; miss <= 2; miss++) { /* the cancel of the first read, then of the second */
        char v[8];
        snprintf(v, sizeof v, "%d", miss);
        setenv("ITO_FAULT_CANCEL_MISS", v, 1);
        setenv("ITO_WSC_BACKEND", backend, 1);
        CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
        CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
        atomic_store(&done_reading, 0);
        atomic_store(&reads, 0);
        pthread_t wd;
        CHECK_EQ(pthread_create(&wd, NULL, watchdog, NULL), 0);
        ito_thread_t t;
        CHECK_OK(ito_create(&t, idle_reads, NULL, NULL));
        CHECK_OK(ito_join(t, NULL));
        atomic_store(&done_reading, 1);
        CHECK_EQ(pthread_join(wd, NULL), 0);
        CHECK_EQ(atomic_load(&reads), 2);
        close(sp[0]);
        close(sp[1]);
        CHECK_OK(ito_finalize());
        unsetenv("ITO_FAULT_CANCEL_MISS");
    }
    unsetenv("ITO_WSC_BACKEND");
}

static void round_(const char *backend)
{
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
    atomic_store(&stop, 0);
    atomic_store(&done_reading, 0);
    atomic_store(&wrote, 0);
    atomic_store(&got_ult, 0);
    atomic_store(&got_thread, 0);
    atomic_store(&reads, 0);
    pthread_t ft, wd;
    CHECK_EQ(pthread_create(&wd, NULL, watchdog, NULL), 0);
    CHECK_EQ(pthread_create(&ft, NULL, flicker, NULL), 0);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, reader, NULL, NULL));
    CHECK_OK(ito_join(t, NULL));
    atomic_store(&done_reading, 1);
    atomic_store(&stop, 1);
    CHECK_EQ(pthread_join(ft, NULL), 0);
    CHECK_EQ(pthread_join(wd, NULL), 0);
    long left = 0;
    unsigned char in[64];
    for (ssize_t n; (n = recv(sp[0], in, sizeof in, MSG_DONTWAIT)) > 0;) left += n;
    CHECK_EQ(atomic_load(&wrote), atomic_load(&got_ult) + atomic_load(&got_thread) + left);
    printf("%s: %ld reads, %ld bytes to the ULT, %ld to the thread\n", backend, atomic_load(&reads),
           atomic_load(&got_ult), atomic_load(&got_thread));
    close(sp[0]);
    close(sp[1]);
}

int main(void)
{
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++) missed_cancel(ito_test_backends[b]);
    ito_test_each_backend(1, round_);
    TEST_DONE();
}
