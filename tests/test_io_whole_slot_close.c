/* test_io_whole_slot_close: a whole transfer (ito_send, ito_writev, ito_recv with
 * MSG_WAITALL) is not cut short by an ito_close of an unrelated descriptor. syscall.h
 * promises that ito_send & co. return when every byte has moved, short only after an error,
 * the deadline, ito_cancel_io, an ito_close of that descriptor, or finalize. whole.c keeps
 * a close generation per number modulo a table size (4096 until the fix) and took the
 * generation before the first part: an ito_close of number fd + 4096 at any moment while
 * the first part waited (a server's other connection ending while this one waits for a
 * slow client) made the call return the first part's count, with no error: found by an
 * outside tester, h63c, 2026-12-06 (without the fix: "moved 219264 of 1048576", every run).
 * Here the socket's buffer is filled first, so the first part waits; another ULT then
 * ito_closes a pipe at number fd + 4096, and only then the reader drains. Every call must
 * move all its bytes. Both backends, 1 and 2 workers. (Two such closes in one wait still
 * end the call short: the known limit in whole.c.) Skipped (passes) where RLIMIT_NOFILE
 * cannot reach fd + 4096. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "ito_test_net.h"

#define BIG (1u << 20)
static int a, b, far1;
static atomic_int drain;
static unsigned char src[BIG], dst[BIG];

static void *reader(void *arg)
{
    (void)arg;
    while (!atomic_load(&drain)) usleep(1000);
    static unsigned char buf[65536];
    size_t got = 0;
    for (;;) {
        ssize_t n = read(b, buf, sizeof buf);
        if (n <= 0) break;
        got += (size_t)n;
    }
    return (void *)got;
}

/* kind 2's peer: the rest of the bytes once the close has happened */
static void *writer(void *arg)
{
    (void)arg;
    while (!atomic_load(&drain)) usleep(1000);
    size_t off = 100;
    while (off < BIG) {
        ssize_t n = write(b, src + off, BIG - off);
        if (n <= 0) break;
        off += (size_t)n;
    }
    return NULL;
}

static void *closer(void *arg)
{
    (void)arg;
    ito_sleep_ns(30 * 1000000ull); /* the other ULT's first part is waiting now */
    CHECK_EQ(ito_close(far1), 0);
    ito_sleep_ns(30 * 1000000ull);
    atomic_store(&drain, 1);
    return NULL;
}

static void far_pipes(int base)
{
    int p[2];
    CHECK_EQ(pipe(p), 0);
    CHECK_EQ(dup2(p[0], base + 4096), base + 4096);
    close(p[0]);
    close(p[1]);
    far1 = base + 4096;
}

/* kind 0: ito_send, 1: ito_writev, 2: ito_recv MSG_WAITALL (the waiting side is `a`) */
static void round_of(int kind, int tcp)
{
    if (tcp) ito_test_tcp_pair(&a, &b);
    else { int sv[2]; CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0); a = sv[0]; b = sv[1]; }
    atomic_store(&drain, 0);
    far_pipes(a);
    ito_thread_t c;
    if (kind < 2) {
        pthread_t rd;
        CHECK_EQ(pthread_create(&rd, NULL, reader, NULL), 0);
        /* fill a's send side so that the first part of the call waits */
        static unsigned char junk[65536];
        ssize_t pre = 0, r;
        while ((r = send(a, junk, sizeof junk, MSG_DONTWAIT)) > 0) pre += r;
        CHECK_OK(ito_create(&c, closer, NULL, NULL));
        ssize_t w;
        if (kind == 0) w = ito_send(a, src, BIG, 0);
        else {
            struct iovec v[2] = {{src, 1000}, {src + 1000, BIG - 1000}};
            w = ito_writev(a, v, 2);
        }
        if (w != (ssize_t)BIG) fprintf(stderr, "kind %d tcp %d: moved %zd of %u\n", kind, tcp, w, BIG);
        CHECK_EQ(w, BIG);
        CHECK_OK(ito_join(c, NULL));
        shutdown(a, SHUT_WR);
        void *got;
        while (pthread_tryjoin_np(rd, &got) == EBUSY) ito_sleep_ns(1000000);
        CHECK_EQ((size_t)got, (size_t)pre + BIG);
    } else {
        CHECK_OK(ito_create(&c, closer, NULL, NULL));
        CHECK_EQ(write(b, src, 100), 100); /* the first part gets these at once... */
        ssize_t r = 0;
        /* ...and the rest after the closes: a foreign thread writes it once drain is set */
        pthread_t wr;
        CHECK_EQ(pthread_create(&wr, NULL, writer, NULL), 0);
        r = ito_recv(a, dst, BIG, MSG_WAITALL);
        if (r != (ssize_t)BIG) fprintf(stderr, "recv waitall tcp %d: got %zd of %u\n", tcp, r, BIG);
        CHECK_EQ(r, BIG);
        CHECK(memcmp(src, dst, BIG) == 0);
        CHECK_OK(ito_join(c, NULL));
        while (pthread_tryjoin_np(wr, NULL) == EBUSY) ito_sleep_ns(1000000);
    }
    close(a);
    close(b);
}

int main(void)
{
    struct rlimit rl;
    CHECK_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < 4096 + 64) {
        printf("skipped: RLIMIT_NOFILE hard limit %lu\n", (unsigned long)rl.rlim_max);
        TEST_DONE();
    }
    struct rlimit up = {4096 + 64, rl.rlim_max};
    if (rl.rlim_cur < up.rlim_cur) CHECK_EQ(setrlimit(RLIMIT_NOFILE, &up), 0);
    for (size_t i = 0; i < BIG; i++) src[i] = (unsigned char)(i * 131u + (i >> 9));
    const char *backends[2] = {"uring", "sync"};
    for (int be = 0; be < 2; be++)
        for (int workers = 1; workers <= 2; workers++) {
            setenv("ITO_WSC_BACKEND", backends[be], 1);
            ito_config_t cfg = {.workers = workers};
            CHECK_OK(ito_init(&cfg));
            for (int kind = 0; kind < 3; kind++)
                for (int tcp = 0; tcp < 2; tcp++) round_of(kind, tcp);
            CHECK_OK(ito_finalize());
        }
    CHECK_EQ(setrlimit(RLIMIT_NOFILE, &rl), 0);
    TEST_DONE();
}
