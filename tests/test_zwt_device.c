/* test_zwt_device: devices deliver continuations: eventfds, timers and pipes turn into
 * continuations to handler ZWTs (or wake a ULT waiting on a code-less entry); no event
 * is lost, a device stays masked until ack, timers fire repeatedly, close cleans up,
 * bad input gives errors. Runs with one worker too (the idle worker must sleep in
 * epoll_wait and be woken by the device). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

/* entries of the test frame */
enum { E_HANDLER, E_DONE, E_KERNEL, E_WAIT, E_PIPE, E_UNDEF, NE };

static ito_device_t *dev;
static _Atomic uint64_t got_sum, got_calls, target;
static _Atomic int inside;

/* Counts what it received; acks (which re-arms it); continues E_DONE at the target.
 * The ack comes before the continuation: once E_DONE fires, main may close `dev` and
 * open the next section's device under the same variable (a regression: acking after
 * the continuation unmasked the next section's device now and then). */
static void handler(ito_frame_t *f, int entry, uint64_t v)
{
    CHECK_EQ(entry, E_HANDLER);
    CHECK_EQ(atomic_exchange(&inside, 1), 0); /* masked: never two handler runs at once */
    CHECK(v >= 1);
    uint64_t sum = atomic_fetch_add(&got_sum, v) + v;
    atomic_fetch_add(&got_calls, 1);
    atomic_store(&inside, 0);
    uint64_t t = atomic_load(&target);
    CHECK(sum <= t || t == 0);
    CHECK_OK(ito_device_ack(dev));
    if (t && sum == t) CHECK_OK(ito_continue(f, E_DONE));
}

/* Takes one event and does not ack. */
static void lazy_handler(ito_frame_t *f, int entry, uint64_t v)
{
    (void)entry;
    atomic_fetch_add(&got_sum, v);
    atomic_fetch_add(&got_calls, 1);
    CHECK_OK(ito_continue(f, E_DONE));
}

/* Counts its runs; the 5th continues E_DONE; acks until main stops it (`stopping`:
 * main is about to close the device, so an ack may find it closed). */
static _Atomic int stopping;
static void timer_handler(ito_frame_t *f, int entry, uint64_t v)
{
    (void)entry;
    CHECK(v >= 1);
    atomic_fetch_add(&got_sum, v);
    if (atomic_load(&stopping)) return;
    int rc = ito_device_ack(dev);
    CHECK(rc == ITO_OK || (rc == ITO_EINVAL && atomic_load(&stopping)));
    if (atomic_fetch_add(&got_calls, 1) + 1 == 5) CHECK_OK(ito_continue(f, E_DONE));
}

/* This ULT sleeps ~200 us on a one-shot timer device: it blocks, so its worker's
 * scheduler context runs (and polls the devices) meanwhile, even with one worker. */
static ito_frame_t *nap_frame;
static ito_device_t *nap_dev;
static void nap(void)
{
    CHECK_OK(ito_device_timer_set(nap_dev, 200000, 0));
    CHECK_OK(ito_frame_wait(nap_frame, 0));
    CHECK_OK(ito_device_ack(nap_dev));
}

static void reset(ito_frame_t *f, ito_zwt_fn h, uint64_t t)
{
    atomic_store(&got_sum, 0);
    atomic_store(&got_calls, 0);
    atomic_store(&target, t);
    CHECK_OK(ito_entry_set(f, E_HANDLER, h, 1, ITO_MODE_USER));
    CHECK_OK(ito_entry_set(f, E_DONE, NULL, 1, ITO_MODE_USER));
}

#define NSIG_FOREIGN 20000
static void *foreign_signaller(void *arg)
{
    ito_device_t *d = arg;
    for (int i = 0; i < NSIG_FOREIGN; i++) {
        CHECK_OK(ito_device_signal(d, 1));
        if (i % 1000 == 0) ito_test_sleep_us(50);
    }
    return NULL;
}

/* pipe device: the handler reads what is there, sums the bytes, acks */
static int pipe_rd;
static _Atomic uint64_t pipe_bytes, pipe_sum, pipe_target;
static void pipe_handler(ito_frame_t *f, int entry, uint64_t events)
{
    (void)entry;
    CHECK(events & EPOLLIN);
    unsigned char buf[512];
    ssize_t r;
    while ((r = read(pipe_rd, buf, sizeof buf)) > 0) {
        uint64_t s = 0;
        for (ssize_t i = 0; i < r; i++) s += buf[i];
        atomic_fetch_add(&pipe_sum, s);
        if (atomic_fetch_add(&pipe_bytes, (uint64_t)r) + (uint64_t)r == atomic_load(&pipe_target)) {
            CHECK_OK(ito_device_ack(dev)); /* before E_DONE: see handler() */
            CHECK_OK(ito_continue(f, E_DONE));
            return;
        }
    }
    CHECK_OK(ito_device_ack(dev));
}

static void *pipe_writer(void *arg)
{
    int fd = *(int *)arg;
    unsigned char buf[300];
    uint64_t seed = 12345;
    for (int k = 0; k < 400; k++) {
        size_t n = 1 + (size_t)(k * 7919 % 300);
        for (size_t i = 0; i < n; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            buf[i] = (unsigned char)(seed >> 56);
        }
        CHECK_EQ(write(fd, buf, n), (long)n);
        if (k % 50 == 0) ito_test_sleep_us(100);
    }
    return NULL;
}

static void kernel_handler(ito_frame_t *f, int entry, uint64_t v)
{
    (void)entry;
    (void)v;
    CHECK_OK(ito_continue(f, E_DONE));
}

static void run(int workers)
{
    ito_config_t cfg = {.workers = workers};
    CHECK_OK(ito_init(&cfg));
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, NE, 0));
    CHECK_OK(ito_frame_create(&nap_frame, 1, 0));
    CHECK_OK(ito_entry_set(nap_frame, 0, NULL, 1, ITO_MODE_USER));
    CHECK_OK(ito_device_timer(0, nap_frame, 0, &nap_dev));

    /* 1. eventfd, signalled from this ULT: every count arrives, exactly once in sum */
    uint64_t total = 0;
    for (uint64_t i = 1; i <= 2000; i++) total += i % 7 + 1;
    reset(f, handler, total);
    CHECK_OK(ito_device_eventfd(f, E_HANDLER, &dev));
    for (uint64_t i = 1; i <= 2000; i++) CHECK_OK(ito_device_signal(dev, i % 7 + 1));
    CHECK_OK(ito_frame_wait(f, E_DONE));
    CHECK_EQ(atomic_load(&got_sum), total);
    CHECK(atomic_load(&got_calls) >= 1 && atomic_load(&got_calls) <= 2000);
    uint64_t delivered, refused;
    CHECK_OK(ito_device_stats(dev, &delivered, &refused));
    CHECK_EQ(delivered, atomic_load(&got_calls));
    CHECK_EQ(refused, 0);
    CHECK_OK(ito_device_close(dev));

    /* 2. eventfd, signalled by a foreign kernel thread: no event lost */
    reset(f, handler, NSIG_FOREIGN);
    CHECK_OK(ito_device_eventfd(f, E_HANDLER, &dev));
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, foreign_signaller, dev), 0);
    CHECK_OK(ito_frame_wait(f, E_DONE));
    CHECK_EQ(pthread_join(th, NULL), 0);
    CHECK_EQ(atomic_load(&got_sum), NSIG_FOREIGN);
    CHECK_OK(ito_device_close(dev));

    /* 3. masking: without an ack the handler gets one continuation only */
    reset(f, lazy_handler, 0);
    CHECK_OK(ito_device_eventfd(f, E_HANDLER, &dev));
    CHECK_EQ(ito_device_ack(dev), ITO_ESTATE); /* nothing delivered yet */
    CHECK_OK(ito_device_signal(dev, 1));
    CHECK_OK(ito_frame_wait(f, E_DONE));
    CHECK_OK(ito_rearm(f, E_DONE, 0));
    for (int i = 0; i < 50; i++) {
        CHECK_OK(ito_device_signal(dev, 2));
        nap(); /* leave the workers time to (wrongly) deliver */
    }
    CHECK_EQ(atomic_load(&got_calls), 1);
    CHECK_EQ(atomic_load(&got_sum), 1);
    CHECK_OK(ito_device_ack(dev)); /* unmask: the 50 signals arrive coalesced */
    CHECK_OK(ito_frame_wait(f, E_DONE));
    CHECK_EQ(atomic_load(&got_calls), 2);
    CHECK_EQ(atomic_load(&got_sum), 101);
    CHECK_OK(ito_device_close(dev));

    /* 4. a periodic timer fires repeatedly (1 ms); close stops it */
    reset(f, timer_handler, 0);
    atomic_store(&stopping, 0);
    CHECK_OK(ito_device_timer(1000000, f, E_HANDLER, &dev));
    CHECK_OK(ito_frame_wait(f, E_DONE)); /* the 5th run continues E_DONE */
    CHECK(atomic_load(&got_calls) >= 5);
    atomic_store(&stopping, 1);
    CHECK_OK(ito_device_close(dev));
    for (int i = 0; i < 3; i++) nap();
    uint64_t calls = atomic_load(&got_calls);
    for (int i = 0; i < 5; i++) nap();
    CHECK_EQ(atomic_load(&got_calls), calls); /* nothing after close */
    CHECK(atomic_load(&got_sum) >= calls);    /* each run takes >= 1 expiry */

    /* 5. a one-shot timer wakes a ULT waiting on a code-less entry, three times */
    CHECK_OK(ito_entry_set(f, E_WAIT, NULL, 1, ITO_MODE_USER));
    CHECK_OK(ito_device_timer(0, f, E_WAIT, &dev));
    for (int i = 0; i < 3; i++) {
        CHECK_OK(ito_device_timer_set(dev, 200000, 0));
        CHECK_OK(ito_frame_wait(f, E_WAIT));
        CHECK_OK(ito_device_ack(dev)); /* re-arms E_WAIT */
    }
    CHECK_OK(ito_device_stats(dev, &delivered, NULL));
    CHECK_EQ(delivered, 3);
    CHECK_OK(ito_device_close(dev));

    /* 6. a pipe: the handler reads the data itself; every byte arrives once */
    int p[2];
    CHECK_EQ(pipe2(p, O_NONBLOCK | O_CLOEXEC), 0);
    pipe_rd = p[0];
    uint64_t want_bytes = 0, want_sum = 0, seed = 12345;
    for (int k = 0; k < 400; k++) {
        size_t n = 1 + (size_t)(k * 7919 % 300);
        for (size_t i = 0; i < n; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            want_sum += (unsigned char)(seed >> 56);
        }
        want_bytes += n;
    }
    atomic_store(&pipe_target, want_bytes);
    atomic_store(&pipe_bytes, 0);
    atomic_store(&pipe_sum, 0);
    CHECK_OK(ito_entry_set(f, E_PIPE, pipe_handler, 1, ITO_MODE_USER));
    CHECK_OK(ito_entry_set(f, E_DONE, NULL, 1, ITO_MODE_USER));
    CHECK_OK(ito_device_open_fd(p[0], f, E_PIPE, &dev));
    CHECK_EQ(ito_device_fd(dev), p[0]);
    CHECK_EQ(pthread_create(&th, NULL, pipe_writer, &p[1]), 0);
    CHECK_OK(ito_frame_wait(f, E_DONE));
    CHECK_EQ(pthread_join(th, NULL), 0);
    CHECK_EQ(atomic_load(&pipe_bytes), want_bytes);
    CHECK_EQ(atomic_load(&pipe_sum), want_sum);
    CHECK_OK(ito_device_close(dev));
    CHECK_EQ(fcntl(p[0], F_GETFD), FD_CLOEXEC); /* the caller's fd stays open */
    close(p[0]);
    close(p[1]);

    /* 7. a device may continue a kernel-mode handler (devices belong to the kernel) */
    CHECK_OK(ito_entry_set(f, E_KERNEL, kernel_handler, 1, ITO_MODE_KERNEL));
    CHECK_OK(ito_entry_set(f, E_DONE, NULL, 1, ITO_MODE_USER));
    CHECK_EQ(ito_continue(f, E_KERNEL), ITO_EPERM); /* but this ULT may not */
    CHECK_OK(ito_device_eventfd(f, E_KERNEL, &dev));
    CHECK_OK(ito_device_signal(dev, 1));
    CHECK_OK(ito_frame_wait(f, E_DONE));
    CHECK_OK(ito_device_close(dev));

    /* 8. close cleans up: slots and fds are recycled (more opens than slots) */
    int fd0 = -1;
    for (int i = 0; i < ITO_DEVICE_MAX + 500; i++) { /* (nap_dev holds one slot) */
        CHECK_OK(ito_device_eventfd(f, E_HANDLER, &dev));
        if (i == 0) fd0 = ito_device_fd(dev);
        else CHECK_EQ(ito_device_fd(dev), fd0);
        CHECK_OK(ito_device_close(dev));
    }
    /* closing a device that has a delivered, unacked event; the handle is then dead */
    reset(f, lazy_handler, 0);
    CHECK_OK(ito_device_eventfd(f, E_HANDLER, &dev));
    CHECK_OK(ito_device_signal(dev, 3));
    CHECK_OK(ito_frame_wait(f, E_DONE));
    CHECK_OK(ito_device_close(dev));
    CHECK_EQ(ito_device_close(dev), ITO_EINVAL);
    CHECK_EQ(ito_device_ack(dev), ITO_EINVAL);
    CHECK_EQ(ito_device_signal(dev, 1), ITO_EINVAL);
    CHECK_EQ(ito_device_fd(dev), ITO_EINVAL);
    CHECK_EQ(atomic_load(&got_calls), 1);

    /* 9. bad input */
    ito_device_t *d2;
    int x;
    CHECK_EQ(ito_device_open_fd(-1, f, E_HANDLER, &d2), ITO_EINVAL);
    CHECK_EQ(ito_device_open_fd(1 << 20, f, E_HANDLER, &d2), ITO_EINVAL); /* not an fd */
    int reg = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    CHECK(reg >= 0);
    CHECK_EQ(ito_device_open_fd(reg, f, E_HANDLER, &d2), ITO_EINVAL); /* a regular file */
    close(reg);
    CHECK_EQ(ito_device_eventfd(NULL, E_HANDLER, &d2), ITO_EINVAL);
    CHECK_EQ(ito_device_eventfd(f, NE, &d2), ITO_ERANGE);
    CHECK_EQ(ito_device_eventfd(f, -1, &d2), ITO_ERANGE);
    CHECK_EQ(ito_device_eventfd(f, E_UNDEF, &d2), ITO_ESTATE);
    CHECK_EQ(ito_device_eventfd(f, E_HANDLER, NULL), ITO_EINVAL);
    CHECK_EQ(ito_device_timer(1000, NULL, 0, &d2), ITO_EINVAL);
    CHECK_EQ(ito_device_ack(NULL), ITO_EINVAL);
    CHECK_EQ(ito_device_close((ito_device_t *)&x), ITO_EINVAL); /* not a device */
    CHECK_OK(ito_device_eventfd(f, E_HANDLER, &dev));
    CHECK_EQ(ito_device_signal(dev, 0), ITO_EINVAL);
    CHECK_EQ(ito_device_timer_set(dev, 1000, 0), ITO_EINVAL); /* not a timer */
    CHECK_EQ(ito_device_open_fd(ito_device_fd(dev), f, E_HANDLER, &d2), ITO_EBUSY); /* watched already */
    CHECK_EQ(ito_device_stats(dev, NULL, NULL), ITO_EINVAL);
    CHECK_OK(ito_device_timer(0, f, E_HANDLER, &d2));
    CHECK_EQ(ito_device_signal(d2, 1), ITO_EINVAL); /* not an eventfd */
    CHECK_OK(ito_device_close(d2));
    /* a handler whose frame is gone: the delivery is refused, counted, not lost silently */
    ito_frame_t *g;
    CHECK_OK(ito_frame_create(&g, 1, 0));
    CHECK_OK(ito_entry_set(g, 0, handler, 1, ITO_MODE_USER));
    CHECK_OK(ito_device_eventfd(g, 0, &d2));
    CHECK_OK(ito_frame_destroy(g));
    CHECK_OK(ito_device_signal(d2, 1));
    uint64_t ref = 0;
    for (int i = 0; i < 2000 && ref == 0; i++) {
        nap();
        CHECK_OK(ito_device_stats(d2, NULL, &ref));
    }
    CHECK_EQ(ref, 1);
    CHECK_EQ(ito_device_ack(d2), ITO_EINVAL); /* its frame is gone */
    CHECK_OK(ito_device_close(d2));
    CHECK_OK(ito_frame_destroy(f));
    /* nap_dev is left open on purpose: ito_finalize closes it */
    CHECK_OK(ito_finalize());
    CHECK_EQ(ito_device_eventfd(f, 0, &d2), ITO_ESTATE);
}

int main(void)
{
    run(2);
    run(1); /* the only worker sleeps in epoll_wait while main waits */
    TEST_DONE();
}
