/* test_io_deadline_race: I/O deadlines that fire just as the request completes (both
 * backends, 1 and 2 workers). Four ULTs pread 8 KiB from a memfd (the sync backend runs
 * regular files on its helper threads; io_uring on its own workers) and read from pipes
 * that a fifth ULT feeds, with deadlines of 5-200 us, 3000 times each; the buffers sit
 * between canaries. Every call returns a count or fails with ETIMEDOUT, nothing is read
 * twice or lost on the pipes (bytes fed = bytes read + bytes left), and the canaries and
 * the ULTs' stacks stay intact.
 *
 * Regression test: when a request completed after its deadline had passed but before the
 * deadline's timer fired, the firing found the wait done and woke the ULT a second time.
 * Queued twice, the ULT later resumed inside its next wait while that request was still
 * running, and the request's completion (the helper's pread) wrote into a stack that was
 * in use again: a jump to address 0 within 12 ms in a release build (found by fuzz_io). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "ito_test.h"
#include "io_test.h"

#define ROUNDS 3000
#define READERS 4

static int mf, pipe_r[READERS], pipe_w[READERS];
static _Atomic long fed, taken, timeouts;
static _Atomic int feeding;

static void *reader(void *arg)
{
    int who = (int)(intptr_t)arg;
    static const uint64_t dl[4] = {5000, 20000, 60000, 200000};
    for (int i = 0; i < ROUNDS; i++) {
        volatile unsigned char guard1[64];
        unsigned char buf[8192];
        volatile unsigned char guard2[64];
        memset((void *)guard1, 0xab, sizeof guard1);
        memset((void *)guard2, 0xcd, sizeof guard2);
        CHECK_OK(ito_io_deadline(ito_deadline_in(dl[(i + who) & 3])));
        ssize_t n = (i & 1) ? ito_pread(mf, buf, sizeof buf, (off_t)(i % 8) * 4096)
                            : ito_read(pipe_r[who], buf, sizeof buf);
        if (n < 0) {
            CHECK_EQ(errno, ETIMEDOUT);
            atomic_fetch_add(&timeouts, 1);
        } else if (!(i & 1)) {
            atomic_fetch_add(&taken, n);
        } else {
            CHECK(n > 0);
            CHECK_EQ(buf[0], (unsigned char)((i % 8) * 4096 % 251));
        }
        for (size_t k = 0; k < sizeof guard1; k++) {
            CHECK_EQ(guard1[k], 0xab);
            CHECK_EQ(guard2[k], 0xcd);
        }
        if (i % 7 == 0) CHECK_OK(ito_yield());
    }
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    return NULL;
}

/* Feeds the pipes a few bytes at a time, so that reads complete around their deadlines. */
static void *feeder(void *arg)
{
    (void)arg;
    unsigned char b[16] = {0};
    for (unsigned i = 0; atomic_load(&feeding); i++) {
        CHECK_OK(ito_io_deadline(ito_deadline_in(100000000))); /* a full pipe never blocks it for ever */
        ssize_t n = ito_write(pipe_w[i % READERS], b, 1 + i % sizeof b);
        if (n > 0) atomic_fetch_add(&fed, n);
        else CHECK_EQ(errno, ETIMEDOUT);
        CHECK_OK(ito_sleep_ns(10000 + (i % 5) * 10000));
    }
    return NULL;
}

static void run(int workers, const char *backend)
{
    setenv("ITO_WSC_BACKEND", backend, 1);
    ito_config_t cfg = {.workers = workers};
    CHECK_OK(ito_init(&cfg));
    for (int i = 0; i < READERS; i++) {
        int p[2];
        CHECK(pipe(p) == 0);
        pipe_r[i] = p[0];
        pipe_w[i] = p[1];
    }
    atomic_store(&fed, 0);
    atomic_store(&taken, 0);
    atomic_store(&feeding, 1);
    ito_thread_t r[READERS], f;
    CHECK_OK(ito_create(&f, feeder, NULL, NULL));
    for (int i = 0; i < READERS; i++) CHECK_OK(ito_create(&r[i], reader, (void *)(intptr_t)i, NULL));
    for (int i = 0; i < READERS; i++) CHECK_OK(ito_join(r[i], NULL));
    atomic_store(&feeding, 0);
    CHECK_OK(ito_join(f, NULL));
    CHECK_OK(ito_finalize());
    long left = 0;
    for (int i = 0; i < READERS; i++) {
        unsigned char b[4096];
        CHECK(fcntl(pipe_r[i], F_SETFL, O_NONBLOCK) == 0);
        for (ssize_t n; (n = read(pipe_r[i], b, sizeof b)) > 0;) left += n;
        close(pipe_r[i]);
        close(pipe_w[i]);
    }
    CHECK_EQ(atomic_load(&fed), atomic_load(&taken) + left);
    unsetenv("ITO_WSC_BACKEND");
}

int main(void)
{
    mf = memfd_create("test_io_deadline_race", MFD_CLOEXEC);
    CHECK(mf >= 0);
    static unsigned char data[8 * 4096 + 8192];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)(i % 251);
    CHECK(write(mf, data, sizeof data) == (ssize_t)sizeof data);
    for (int workers = 1; workers <= 2; workers++) {
        run(workers, "sync");
        run(workers, "uring");
    }
    close(mf);
    printf("deadlines hit: %ld of %d calls\n", atomic_load(&timeouts), 4 * READERS * ROUNDS);
    TEST_DONE();
}
