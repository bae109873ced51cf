/* test_zwt_device_max: ITO_DEVICE_MAX devices may be open at once; the next open of each
 * kind is ITO_ENOMEM (zwt.h: "ITO_ENOMEM (also: ITO_DEVICE_MAX devices open)") and leaves
 * nothing behind (its fd for a timer or eventfd is closed again); a closed slot opens
 * again and the devices still deliver (h60b's API table, 2026-12-05: the row was MISSING).
 * Needs ITO_DEVICE_MAX + 64 descriptors: the soft RLIMIT_NOFILE is raised to the hard one,
 * and the test is skipped (passes) where that is too low. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static atomic_int fired;
static void handler(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    (void)e;
    (void)v;
    atomic_fetch_add(&fired, 1);
}

static int open_fds(void)
{
    int n = 0;
    for (int fd = 0; fd < 65536; fd++) n += fcntl(fd, F_GETFD) >= 0;
    return n;
}

int main(void)
{
    struct rlimit rl;
    CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0);
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < ITO_DEVICE_MAX + 64) {
        printf("skip: RLIMIT_NOFILE hard limit %llu\n", (unsigned long long)rl.rlim_max);
        TEST_DONE();
    }
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > 65536 ? 65536 : rl.rlim_max;
    CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, 1, 0));
    CHECK_OK(ito_entry_set(f, 0, handler, 1, ITO_MODE_USER));
    static ito_device_t *d[ITO_DEVICE_MAX];
    for (int i = 0; i < ITO_DEVICE_MAX; i++) CHECK_OK(ito_device_eventfd(f, 0, &d[i]));
    int fds = open_fds();
    ito_device_t *x = NULL;
    CHECK_EQ(ito_device_eventfd(f, 0, &x), ITO_ENOMEM);
    CHECK_EQ(ito_device_timer(1000000, f, 0, &x), ITO_ENOMEM);
    int efd = eventfd(0, EFD_CLOEXEC);
    CHECK(efd >= 0);
    CHECK_EQ(ito_device_open_fd(efd, f, 0, &x), ITO_ENOMEM);
    CHECK_EQ(open_fds(), fds + 1); /* only efd: the refused timer and eventfd left no fd */
    /* a closed slot opens again, and the new device delivers */
    CHECK_OK(ito_device_close(d[17]));
    CHECK_OK(ito_device_open_fd(efd, f, 0, &d[17]));
    uint64_t one = 1;
    CHECK(write(efd, &one, sizeof one) == sizeof one);
    for (int i = 0; i < 2000 && !atomic_load(&fired); i++) CHECK_OK(ito_sleep_ns(1000000));
    CHECK_EQ(atomic_load(&fired), 1);
    for (int i = 0; i < ITO_DEVICE_MAX; i++) CHECK_OK(ito_device_close(d[i]));
    close(efd);
    while (ito_frame_destroy(f) == ITO_EBUSY) CHECK_OK(ito_yield());
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
