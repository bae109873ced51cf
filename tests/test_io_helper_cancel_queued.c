/* test_io_helper_cancel_queued: on the sync backend, a call queued for a helper thread that
 * no helper has started yet (all four are busy) is taken back by ito_cancel_io at once
 * (syscall.h: ECANCELED; helpers.c: "a record that no helper has started can be taken
 * back"). Four large writes to ptys that nobody reads hold every helper in write(2) (the
 * known limit of syscall.h); an ito_fsync queued behind them is cancelled: it must end
 * within a second with ECANCELED while the four still block (found by mutation testing,
 * h60d: a cancellation that only marked the queued record abandoned, leaving it to wait
 * until a helper came free, passed every test). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define BUSY 4 /* helpers.c HELPERS_MAX */
#define BIG (1 << 20)

static char big[BIG];

static void *writer(void *arg)
{
    int fd = (int)(intptr_t)arg;
    ssize_t n = ito_write(fd, big, sizeof big); /* blocks a helper until the master goes */
    (void)n;
    return NULL;
}

static void *syncer(void *arg)
{
    int fd = (int)(intptr_t)arg;
    errno = 0;
    int rc = ito_fsync(fd);
    return (void *)(intptr_t)(rc == -1 && errno == ECANCELED ? 1 : rc == 0 ? 2 : -errno);
}

int main(void)
{
    setenv("ITO_WSC_BACKEND", "sync", 1);
    CHECK_OK(ito_init(NULL));
    CHECK_EQ(ito_wsc_backend(), ITO_WSC_SYNC);
    int master[BUSY], slave[BUSY];
    ito_thread_t t[BUSY], s;
    for (int i = 0; i < BUSY; i++) {
        master[i] = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        CHECK(master[i] >= 0);
        CHECK_EQ(grantpt(master[i]), 0);
        CHECK_EQ(unlockpt(master[i]), 0);
        slave[i] = open(ptsname(master[i]), O_RDWR | O_NOCTTY | O_CLOEXEC);
        CHECK(slave[i] >= 0);
        CHECK_OK(ito_create(&t[i], writer, (void *)(intptr_t)slave[i], NULL));
    }
    CHECK_OK(ito_sleep_ns(300ull * 1000 * 1000)); /* the four hold the helpers */
    char path[] = "/tmp/ito_helper_cancel_XXXXXX";
    int ffd = mkstemp(path);
    CHECK(ffd >= 0);
    unlink(path);
    CHECK_OK(ito_create(&s, syncer, (void *)(intptr_t)ffd, NULL));
    CHECK_OK(ito_sleep_ns(100ull * 1000 * 1000)); /* queued, not started */
    CHECK_OK(ito_cancel_io(s));
    void *r = NULL;
    int rc = ito_join_until(s, &r, ito_deadline_in(1000ull * 1000 * 1000));
    if (rc != ITO_OK) fprintf(stderr, "the cancelled queued fsync has not ended after 1 s (%s)\n", ito_strerror(rc));
    for (int i = 0; i < BUSY; i++) close(master[i]); /* the writes fail: the helpers come free */
    if (rc != ITO_OK) CHECK_OK(ito_join(s, &r));
    for (int i = 0; i < BUSY; i++) CHECK_OK(ito_join(t[i], NULL));
    CHECK_EQ(rc, ITO_OK);
    CHECK_EQ((intptr_t)r, 1);
    for (int i = 0; i < BUSY; i++) close(slave[i]);
    close(ffd);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
