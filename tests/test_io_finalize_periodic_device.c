/* test_io_finalize_periodic_device: ito_finalize cancels a ULT parked in a blocking
 * wrapper on a socket after the grace period (syscall.h, "Finalize"), also while a
 * periodic timer device is open. thread.h: "A periodic one never ends by itself and is
 * not waited for". Found by an outside tester, h65f, 2026-12-06: with any periodic timer
 * device open (its handler acking each delivery; periods from 0.5 ms to 2 s) and one
 * detached ULT parked in ito_recv on a socketpair nobody writes to, ito_finalize never
 * returned, on both backends: the armed periodic timer counted as pending work (and its
 * deliveries as progress), so the grace period never passed and the cancel pass never
 * ran (a server with a housekeeping timer and an accept loop could not finalize).
 * Here: ITO_FINALIZE_GRACE_MS=50, a 2 ms periodic timer device with an acking handler,
 * a ULT parked in ito_recv; finalize must return ITO_OK and the ULT must have got
 * ECANCELED. Also with the device's handler a code-less entry a second ULT waits on
 * in a loop of ito_frame_wait_until with a deadline (that ULT ends by itself once its
 * deadline passes and it sees the stop flag). Both backends, 1 and 2 workers. An alarm
 * ends the test if finalize hangs. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_device_t *dev;
static _Atomic long fired;
static int fds[2];
static _Atomic int park_errno;

static void on_tick(ito_frame_t *f, int entry, uint64_t v)
{
    (void)f;
    (void)entry;
    (void)v;
    atomic_fetch_add(&fired, 1);
    CHECK_OK(ito_device_ack(dev));
}

static void *parked(void *arg)
{
    (void)arg;
    char b[4];
    ssize_t r = ito_recv(fds[1], b, sizeof b, 0);
    atomic_store(&park_errno, r < 0 ? errno : -1);
    return NULL;
}

static void run(const char *backend, int workers)
{
    CHECK_OK(setenv("ITO_WSC_BACKEND", backend, 1));
    CHECK_OK(setenv("ITO_FINALIZE_GRACE_MS", "50", 1));
    CHECK_OK(ito_init(&(ito_config_t){.workers = workers}));
    atomic_store(&fired, 0);
    atomic_store(&park_errno, 0);
    ito_frame_t *fr;
    CHECK_OK(ito_frame_create(&fr, 1, 0));
    CHECK_OK(ito_entry_set(fr, 0, on_tick, 1, ITO_MODE_USER));
    CHECK_OK(ito_device_timer(2000000, fr, 0, &dev));
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.flags |= ITO_ATTR_DETACHED;
    ito_thread_t t;
    CHECK_OK(ito_create(&t, parked, NULL, &a));
    while (atomic_load(&fired) < 3) CHECK_OK(ito_sleep_ns(1000000));
    alarm(15); /* finalize hung for ever before the fix */
    CHECK_OK(ito_finalize());
    alarm(0);
    CHECK_EQ(atomic_load(&park_errno), ECANCELED);
    close(fds[0]);
    close(fds[1]);
}

int main(void)
{
    for (int w = 1; w <= 2; w++) {
        run("sync", w);
        run("uring", w);
    }
    TEST_DONE();
}
