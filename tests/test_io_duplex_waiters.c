/* test_io_duplex_waiters: a receive and a send waiting on one socket at once (a full-duplex
 * connection: one ULT reads, another writes) are both woken by their own events. On the
 * sync backend both wait in the worker's epoll on one registration, whose events must be
 * the union of its waiters' (ready.c) and be armed again for the waiter left after the
 * other's event (one-shot). A registration that kept only the last waiter's events, or was
 * not armed again, lost a wake-up: the reader slept while its data sat in the socket, or
 * the writer while the peer drained the socket, and no test saw it (found by mutation
 * testing, h60e, 2026-12-05). The peer is a plain pthread: it sends "ping" while the
 * writer's send waits for room, waits for the reader to have it, then drains the send.
 * Both backends, one worker (both waiters on its epoll). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito/syscall.h"
#include "ito_test.h"

#define BIG (4u << 20)

static int sv[2];
static _Atomic int reader_has, writer_done;
static ssize_t reader_got, writer_sent;
static char *big;

static void *reader(void *arg)
{
    (void)arg;
    char buf[8] = {0};
    CHECK_OK(ito_io_deadline(ito_deadline_in(4000000000ull))); /* never reached when woken */
    reader_got = ito_recv(sv[0], buf, 4, MSG_WAITALL);
    if (reader_got == 4) CHECK_EQ(memcmp(buf, "ping", 4), 0);
    atomic_store(&reader_has, 1);
    return NULL;
}

static void *writer(void *arg)
{
    (void)arg;
    CHECK_OK(ito_io_deadline(ito_deadline_in(4000000000ull)));
    writer_sent = ito_send(sv[0], big, BIG, 0);
    atomic_store(&writer_done, 1);
    return NULL;
}

static int peer_saw_reader; /* the reader had "ping" before the peer drained anything */

static void *peer(void *arg)
{
    (void)arg;
    ito_test_sleep_us(100000); /* both ULTs wait: the reader for data, the writer for room */
    CHECK_EQ(send(sv[1], "ping", 4, 0), 4);
    uint64_t t0 = ito_test_now_ns();
    while (!atomic_load(&reader_has) && ito_test_now_ns() - t0 < 3000000000ull) ito_test_sleep_us(1000);
    peer_saw_reader = atomic_load(&reader_has);
    /* now drain what the writer sends; its send waits for this room */
    char *buf = malloc(65536);
    size_t total = 0;
    while (total < BIG) {
        ssize_t n = recv(sv[1], buf, 65536, 0);
        if (n <= 0) break;
        total += (size_t)n;
    }
    free(buf);
    return (void *)(uintptr_t)total;
}

static void round_of(const char *backend)
{
    (void)backend;
    atomic_store(&reader_has, 0);
    atomic_store(&writer_done, 0);
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    struct timeval tv = {.tv_sec = 5}; /* the peer's drain ends even if the writer stopped */
    CHECK_EQ(setsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv), 0);
    ito_thread_t r, w;
    CHECK_OK(ito_create(&r, reader, NULL, NULL));
    for (int i = 0; i < 5; i++) CHECK_OK(ito_yield()); /* the reader waits first */
    CHECK_OK(ito_create(&w, writer, NULL, NULL));
    for (int i = 0; i < 5; i++) CHECK_OK(ito_yield());
    pthread_t p;
    CHECK_EQ(pthread_create(&p, NULL, peer, NULL), 0);
    CHECK_OK(ito_join(r, NULL));
    CHECK_OK(ito_join(w, NULL));
    void *drained;
    CHECK_EQ(pthread_join(p, &drained), 0);
    CHECK(peer_saw_reader);         /* the reader was woken by its data, not by the writer's end */
    CHECK_EQ(reader_got, 4);
    CHECK_EQ(writer_sent, (ssize_t)BIG); /* the writer was woken by the room the peer made */
    CHECK_EQ((size_t)(uintptr_t)drained, (size_t)BIG);
    close(sv[0]);
    close(sv[1]);
}

int main(void)
{
    big = calloc(1, BIG);
    CHECK(big != NULL);
    ito_test_each_backend(1, round_of);
    free(big);
    TEST_DONE();
}
