/* test_io_sync_nowait: what the sync backend's non-blocking attempts must never do
 * (src/wsc/nonblock.c). Found by a chaos test (2026-12-03):
 *  1. a regular file whose first pages are in the page cache: RWF_NOWAIT read only those,
 *     and ito_pread / ito_read of 4 MiB returned 160 KiB / 2.5 MiB where read(2) returns
 *     everything (a short count at end of file stays right);
 *  2. ito_accept on a pipe failed with ENOTSOCK but left the pipe in O_NONBLOCK mode (a
 *     later plain read(2) failed with EAGAIN);
 *  3. a descriptor without RWF_NOWAIT (inotify): after its readiness the worker itself
 *     called read(2), which blocked the worker's kernel thread when a ULT on the other
 *     worker took the event first. Two readers on two workers and a heartbeat ULT on each:
 *     every worker must keep ticking while the events come one by one.
 * Parts 1 and 2 run on both backends (io_uring must answer the same). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define FSZ ((size_t)16 << 20)
#define PART ((size_t)4 << 20)

static char dir[] = "/tmp/ito_sync_nowait_XXXXXX";

static void file_reads(void)
{
    char path[64];
    snprintf(path, sizeof path, "%s/big", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0);
    char *b = malloc(FSZ);
    CHECK(b != NULL);
    memset(b, 'q', FSZ);
    CHECK_EQ(write(fd, b, FSZ), (ssize_t)FSZ);
    CHECK_EQ(fsync(fd), 0);
    char head[8192];
    for (int it = 0; it < 4; it++) {
        CHECK_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
        CHECK_EQ(pread(fd, head, sizeof head, 0), (ssize_t)sizeof head); /* the first pages cached */
        CHECK_EQ(ito_pread(fd, b, PART, 0), (ssize_t)PART);
        CHECK_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
        CHECK_EQ(pread(fd, head, sizeof head, 0), (ssize_t)sizeof head);
        CHECK_EQ(lseek(fd, 0, SEEK_SET), 0);
        CHECK_EQ(ito_read(fd, b, PART), (ssize_t)PART);
        CHECK_EQ(lseek(fd, 0, SEEK_CUR), (off_t)PART); /* the position moved by the whole */
    }
    /* at end of file the short count is the answer */
    CHECK_EQ(ito_pread(fd, b, PART, (off_t)(FSZ - 100)), 100);
    CHECK_EQ(lseek(fd, (off_t)(FSZ - 10), SEEK_SET), (off_t)(FSZ - 10));
    CHECK_EQ(ito_read(fd, b, PART), 10);
    CHECK_EQ(ito_read(fd, b, PART), 0);
    close(fd);
    unlink(path);
    free(b);
}

static void accept_on_pipe(void)
{
    int p[2];
    CHECK_EQ(pipe(p), 0);
    errno = 0;
    CHECK_EQ(ito_accept(p[0], NULL, NULL), -1);
    CHECK_EQ(errno, ENOTSOCK);
    CHECK_EQ(fcntl(p[0], F_GETFL) & O_NONBLOCK, 0); /* the mode untouched */
    close(p[0]);
    close(p[1]);
}

static void *parts_1_2(void *arg)
{
    (void)arg;
    file_reads();
    accept_on_pipe();
    return NULL;
}

static void round_12(const char *backend)
{
    (void)backend;
    ito_thread_t t;
    CHECK_OK(ito_create(&t, parts_1_2, NULL, NULL));
    CHECK_OK(ito_join(t, NULL));
}

/* part 3 */
#define EVENTS 40
static int ifd;
static atomic_long beats[2];
static atomic_int stop;

static void *heartbeat(void *arg)
{
    int w = (int)(intptr_t)arg;
    while (!atomic_load(&stop)) {
        CHECK_OK(ito_sleep_ns(1000 * 1000));
        atomic_fetch_add(&beats[w], 1);
    }
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    char b[4096] __attribute__((aligned(8)));
    for (;;) {
        ssize_t r = ito_read(ifd, b, sizeof b);
        if (r < 0) {
            CHECK_EQ(errno, ECANCELED); /* the end: ito_cancel_io */
            return NULL;
        }
        CHECK(r > 0);
    }
}

static atomic_int stalls, events_done;

static void make_event(int i)
{
    char p[80];
    snprintf(p, sizeof p, "%s/f%d", dir, i);
    int fd = open(p, O_CREAT | O_WRONLY, 0600); /* one IN_CREATE */
    CHECK(fd >= 0);
    close(fd);
    unlink(p);
}

/* A foreign thread makes the events, one at a time, and watches the heartbeats (a
 * blocked worker must not stop what would unblock it). */
static void *events(void *arg)
{
    (void)arg;
    for (int i = 0; i < EVENTS; i++) {
        make_event(i);
        /* A worker blocked in read(2) stays blocked until the next event, which comes only
         * after this check: so wait long for both heartbeats (a fixed 50 ms window counted
         * a worker the OS had not run for 50 ms under load as stalled, 2026-12-06). */
        long b0 = atomic_load(&beats[0]), b1 = atomic_load(&beats[1]);
        int waited_ms = 0;
        while ((atomic_load(&beats[0]) == b0 || atomic_load(&beats[1]) == b1) && waited_ms < 5000 && !atomic_load(&stalls)) {
            ito_test_sleep_us(1000);
            waited_ms++;
        }
        if (waited_ms >= 5000) atomic_fetch_add(&stalls, 1);
    }
    for (int i = 0; i < 4; i++) make_event(EVENTS + i); /* a reader blocked in read(2) returns */
    atomic_store(&events_done, 1);
    return NULL;
}

static void inotify_readers(void)
{
    ifd = inotify_init1(IN_CLOEXEC);
    CHECK(ifd >= 0);
    CHECK(inotify_add_watch(ifd, dir, IN_CREATE) >= 0);
    ito_thread_t t[4];
    for (int w = 0; w < 2; w++) {
        ito_attr_t a;
        ito_attr_init(&a);
        a.worker = w;
        CHECK_OK(ito_create(&t[w], heartbeat, (void *)(intptr_t)w, &a));
        CHECK_OK(ito_create(&t[2 + w], reader, NULL, &a));
    }
    pthread_t g;
    CHECK_EQ(pthread_create(&g, NULL, events, NULL), 0);
    while (!atomic_load(&events_done)) CHECK_OK(ito_sleep_ns(10 * 1000 * 1000));
    CHECK_EQ(pthread_join(g, NULL), 0);
    atomic_store(&stop, 1);
    for (int i = 0; i < 2; i++) CHECK_OK(ito_join(t[i], NULL));
    for (int i = 2; i < 4; i++) {
        CHECK_OK(ito_cancel_io(t[i]));
        CHECK_OK(ito_join(t[i], NULL));
    }
    CHECK_EQ(atomic_load(&stalls), 0); /* a worker blocked in read(2) stops its heartbeat */
    close(ifd);
}

int main(void)
{
    CHECK(mkdtemp(dir) != NULL);
    ito_test_each_backend(2, round_12);
    setenv("ITO_WSC_BACKEND", "sync", 1);
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    inotify_readers();
    CHECK_OK(ito_finalize());
    rmdir(dir);
    TEST_DONE();
}
