/* test_io_finalize: ito_finalize never loses work (both backends).
 *  1. detached ULTs write files with ito_write and main finalizes at once: every byte is
 *     on disk (plain, O_DSYNC, and with two CPU hogs running);
 *  2. a ULT parked in ito_recv is fed by a foreign pthread 500 ms after finalize started
 *     (within the default grace period of 1 s): it gets its data and finishes first;
 *  3. a ULT waits on a one-shot 50 ms ZWT timer device; a ULT sleeps 80 ms: both finish;
 *  4. a ULT parked in ito_read on a pipe nobody writes gets ECANCELED after the grace
 *     period and runs to its end; finalize returns ITO_OK. So do a reader whose I/O
 *     deadline is a minute away and an ito_poll with a one-minute timeout: a deadline only
 *     bounds a wait, it is not work, so finalize cancels them after the grace period
 *     instead of waiting for the deadline (a server's idle timeouts held finalize for their
 *     whole length before). A ULT in a timed wait on an ito object, which finalize cannot
 *     cancel, still gets its ETIMEDOUT (finalize waits for it instead of ITO_EBUSY);
 *  5. a ULT blocked for ever on a cond: finalize returns ITO_EBUSY and the runtime stays up;
 *     a foreign thread may still signal it, and a second finalize succeeds;
 *  6. a foreign thread calling into the finalized runtime gets ITO_ESTATE. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "io_test.h"

#define NWRITERS 16
#define CHUNK 4096
#define CHUNKS 64

static char dir[] = "/tmp/ito_io_finalize_XXXXXX";
static int extra_flags;

static void *writer(void *arg)
{
    int who = (int)(intptr_t)arg;
    int fd = io_open_writer(dir, who, extra_flags);
    for (int k = 0; k < CHUNKS; k++) {
        unsigned char buf[CHUNK];
        io_fill(buf, CHUNK, who, k);
        io_write_all(fd, buf, CHUNK);
    }
    CHECK_EQ(ito_close(fd), 0);
    return NULL;
}

static void check_files(void)
{
    for (int who = 0; who < NWRITERS; who++) io_check_file(dir, who, CHUNKS, CHUNK);
}

static _Atomic int hog_stop;
static void *hog(void *unused)
{
    (void)unused;
    volatile unsigned long x = 0;
    while (!atomic_load(&hog_stop)) x++;
    return NULL;
}

static void writers_then_finalize(const char *backend, int flags, int hogs)
{
    extra_flags = flags;
    pthread_t h[2];
    atomic_store(&hog_stop, 0);
    for (int i = 0; i < hogs; i++) CHECK_EQ(pthread_create(&h[i], NULL, hog, NULL), 0);
    setenv("ITO_WSC_BACKEND", backend, 1);
    CHECK_OK(ito_init(NULL));
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.flags = ITO_ATTR_DETACHED;
    for (int i = 0; i < NWRITERS; i++) CHECK_OK(ito_create(NULL, writer, (void *)(intptr_t)i, &a));
    CHECK_OK(ito_finalize()); /* at once: the writers are live work */
    atomic_store(&hog_stop, 1);
    for (int i = 0; i < hogs; i++) pthread_join(h[i], NULL);
    check_files();
}

/* ---- 2. recv fed by a foreign thread after finalize started ---- */
static int sv[2];
static _Atomic long received;
static void *receiver(void *unused)
{
    (void)unused;
    char b[64];
    ssize_t n = ito_recv(sv[1], b, sizeof b, MSG_WAITALL);
    CHECK_EQ(n, 11);
    CHECK(memcmp(b, "late hello!", 11) == 0);
    atomic_store(&received, n);
    return NULL;
}

static void *late_feeder(void *unused)
{
    (void)unused;
    struct timespec ts = {0, 500 * 1000 * 1000};
    nanosleep(&ts, NULL);
    CHECK_EQ(write(sv[0], "late hello!", 11), 11);
    return NULL;
}

/* ---- 3. timer device and sleep ---- */
static _Atomic int timer_done, sleep_done;
static void *device_waiter(void *unused)
{
    (void)unused;
    ito_frame_t *f;
    ito_device_t *d;
    CHECK_OK(ito_frame_create(&f, 1, 0));
    CHECK_OK(ito_entry_set(f, 0, NULL, 1, ITO_MODE_USER));
    CHECK_OK(ito_device_timer(0, f, 0, &d));
    CHECK_OK(ito_device_timer_set(d, 50 * 1000 * 1000, 0));
    CHECK_OK(ito_frame_wait(f, 0));
    CHECK_OK(ito_device_close(d));
    CHECK_OK(ito_frame_destroy(f));
    atomic_store(&timer_done, 1);
    return NULL;
}

static void *sleeper(void *unused)
{
    (void)unused;
    CHECK_OK(ito_sleep_ns(80 * 1000 * 1000));
    atomic_store(&sleep_done, 1);
    return NULL;
}

/* ---- 4. a read that can never complete ---- */
static int pipefd[2];
static _Atomic int read_errno;
static void *stuck_reader(void *unused)
{
    (void)unused;
    char b[8];
    errno = 0;
    ssize_t n = ito_read(pipefd[0], b, sizeof b);
    CHECK_EQ(n, -1);
    atomic_store(&read_errno, errno);
    return NULL;
}

static _Atomic int dl_errno, poll_errno, timed_rc;
static void *reader_with_deadline(void *unused)
{
    (void)unused;
    char b[8];
    CHECK_OK(ito_io_deadline(ito_deadline_in(60ull * 1000 * 1000 * 1000)));
    errno = 0;
    CHECK_EQ(ito_read(pipefd[0], b, sizeof b), -1);
    atomic_store(&dl_errno, errno);
    return NULL;
}

static void *poller_with_timeout(void *unused)
{
    (void)unused;
    struct pollfd p = {.fd = pipefd[0], .events = POLLIN};
    errno = 0;
    CHECK_EQ(ito_poll(&p, 1, 60 * 1000), -1);
    atomic_store(&poll_errno, errno);
    return NULL;
}

static ito_mutex_t tm;
static ito_cond_t tc;
static void *timed_cond_waiter(void *unused)
{
    (void)unused;
    CHECK_OK(ito_mutex_lock(&tm));
    atomic_store(&timed_rc, ito_cond_wait_until(&tc, &tm, ito_deadline_in(500ull * 1000 * 1000)));
    CHECK_OK(ito_mutex_unlock(&tm));
    return NULL;
}

/* ---- 5. blocked on an ito object ---- */
static ito_mutex_t m;
static ito_cond_t c;
static int go;
static ito_stream_t *stream;
static void *cond_waiter(void *unused)
{
    (void)unused;
    CHECK_OK(ito_mutex_lock(&m));
    while (!go) CHECK_OK(ito_cond_wait(&c, &m));
    CHECK_OK(ito_mutex_unlock(&m));
    return NULL;
}

static void *foreign_signal(void *unused)
{
    (void)unused;
    /* a foreign thread may signal (the waiter then re-takes the mutex itself) */
    go = 1; /* the waiter re-checks under the mutex after the wake-up */
    CHECK_OK(ito_cond_broadcast(&c));
    return NULL;
}

static void *foreign_after(void *unused)
{
    (void)unused;
    size_t put;
    CHECK_EQ(ito_cond_signal(&c), ITO_ESTATE);
    CHECK_EQ(ito_stream_try_put(stream, "x", 1, &put), ITO_ESTATE);
    CHECK_EQ(ito_stream_close(stream), ITO_ESTATE);
    return NULL;
}

static void the_rest(const char *backend)
{
    setenv("ITO_WSC_BACKEND", backend, 1);
    CHECK_OK(ito_init(NULL)); /* the default grace period */
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.flags = ITO_ATTR_DETACHED;

    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    atomic_store(&received, 0);
    CHECK_OK(ito_create(NULL, receiver, NULL, &a));
    atomic_store(&timer_done, 0);
    atomic_store(&sleep_done, 0);
    CHECK_OK(ito_create(NULL, device_waiter, NULL, &a));
    CHECK_OK(ito_create(NULL, sleeper, NULL, &a));
    pthread_t feeder;
    CHECK_EQ(pthread_create(&feeder, NULL, late_feeder, NULL), 0);
    CHECK_OK(ito_finalize());
    CHECK_EQ(atomic_load(&received), 11);
    CHECK_EQ(atomic_load(&timer_done), 1);
    CHECK_EQ(atomic_load(&sleep_done), 1);
    pthread_join(feeder, NULL);
    close(sv[0]);
    close(sv[1]);

    /* 4: cancelled after the grace period */
    setenv("ITO_FINALIZE_GRACE_MS", "200", 1);
    CHECK_OK(ito_init(NULL));
    CHECK_OK(ito_attr_init(&a));
    a.flags = ITO_ATTR_DETACHED;
    CHECK_EQ(pipe(pipefd), 0);
    atomic_store(&read_errno, 0);
    CHECK_OK(ito_create(NULL, stuck_reader, NULL, &a));
    atomic_store(&dl_errno, 0);
    atomic_store(&poll_errno, 0);
    atomic_store(&timed_rc, -1);
    CHECK_OK(ito_mutex_init(&tm));
    CHECK_OK(ito_cond_init(&tc));
    CHECK_OK(ito_create(NULL, reader_with_deadline, NULL, &a));
    CHECK_OK(ito_create(NULL, poller_with_timeout, NULL, &a));
    CHECK_OK(ito_create(NULL, timed_cond_waiter, NULL, &a));
    uint64_t t0 = ito_now_ns();
    CHECK_OK(ito_finalize());
    uint64_t took = ito_now_ns() - t0;
    CHECK(took >= 200ull * 1000 * 1000);      /* it waited the grace period first */
    CHECK(took < 30ull * 1000 * 1000 * 1000); /* not the one-minute deadlines */
    CHECK_EQ(atomic_load(&read_errno), ECANCELED);
    CHECK_EQ(atomic_load(&dl_errno), ECANCELED);
    CHECK_EQ(atomic_load(&poll_errno), ECANCELED);
    CHECK_EQ(atomic_load(&timed_rc), ITO_ETIMEDOUT);
    CHECK_OK(ito_cond_destroy(&tc));
    CHECK_OK(ito_mutex_destroy(&tm));
    close(pipefd[0]);
    close(pipefd[1]);

    /* 5: blocked on a cond: EBUSY, runtime up; then a foreign signal, and done */
    CHECK_OK(ito_init(NULL));
    CHECK_OK(ito_mutex_init(&m));
    CHECK_OK(ito_cond_init(&c));
    CHECK_OK(ito_stream_create(&stream, 16));
    go = 0;
    ito_thread_t w;
    CHECK_OK(ito_create(&w, cond_waiter, NULL, NULL));
    for (int i = 0; i < 100; i++) ito_yield();
    CHECK_EQ(ito_finalize(), ITO_EBUSY);
    CHECK_EQ(ito_initialized(), 1);
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, foreign_signal, NULL), 0);
    pthread_join(th, NULL);
    CHECK_OK(ito_join(w, NULL));
    CHECK_OK(ito_finalize());

    /* 6: a foreign thread after finalize */
    CHECK_EQ(pthread_create(&th, NULL, foreign_after, NULL), 0);
    pthread_join(th, NULL);
    CHECK_OK(ito_stream_destroy(stream));
    CHECK_OK(ito_cond_destroy(&c));
    CHECK_OK(ito_mutex_destroy(&m));
    unsetenv("ITO_FINALIZE_GRACE_MS");
}

int main(void)
{
    CHECK(mkdtemp(dir) != NULL);
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++) {
        writers_then_finalize(ito_test_backends[b], 0, 0);
        writers_then_finalize(ito_test_backends[b], O_DSYNC, 0);
        writers_then_finalize(ito_test_backends[b], 0, 2);
        the_rest(ito_test_backends[b]);
    }
    rmdir(dir);
    unsetenv("ITO_WSC_BACKEND");
    TEST_DONE();
}
