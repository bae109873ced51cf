/* test_io_connect_unix_backlog_finalize: ito_finalize returns, and cancels the call, while
 * a ULT waits in ito_connect on a unix stream listener whose backlog is full (both
 * backends; 2 workers; ITO_FINALIZE_GRACE_MS=200).
 *
 * On the sync backend such a connect loops in ito_connect (wrappers.c, connect_impl): the
 * kernel says EAGAIN, POLLOUT comes at once, and the wrapper pauses 1, 2, 4 ... 64 ms
 * between attempts. Each attempt waited for POLLOUT and woke the ULT, which finalize counts
 * as progress: it never reached its grace period, never cancelled the connect, and
 * ito_finalize never returned (syscall.h: a wait on a socket is cancelled once nothing has
 * progressed for the grace period; ito_connect then ends with ECANCELED). io_uring was
 * fine (its connect blocks in io-wq and is cancelled). Now such a round's completion
 * (-EALREADY, no cancellation reason) is not progress (src/wsc/area.c complete_full, the
 * fix of test_io_finalize_sendto_unix_full's io_uring case too). Found by two outside
 * testers, h67b and h67d, 2026-12-06: the sync round hung 3 of 3 and 5 of 5 runs without
 * the fix (the watchdog below fired), passes with it. Also checked: a deadline and
 * ito_cancel_io end such a connect (ETIMEDOUT, ECANCELED), and a connect that finds room
 * succeeds. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static struct sockaddr_un ua;
static _Atomic int parked, fin_errno;

static void on_alarm(int sig)
{
    (void)sig;
    static const char m[] = "FAIL: ito_finalize did not return (a connect to a full unix backlog kept it waiting)\n";
    (void)!write(2, m, sizeof m - 1);
    _exit(1);
}

/* k 0: deadlines; 1: ito_cancel_io; 2: left for finalize. */
static void *conn(void *arg)
{
    int k = (int)(intptr_t)arg;
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(s >= 0);
    if (k == 0) CHECK_OK(ito_io_deadline(ito_deadline_in(30000000)));
    atomic_fetch_add(&parked, 1);
    int r = ito_connect(s, (struct sockaddr *)&ua, sizeof ua);
    int e = errno;
    CHECK_EQ(r, -1);
    if (k == 2) atomic_store(&fin_errno, e);
    else CHECK_EQ(e, k == 0 ? ETIMEDOUT : ECANCELED);
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    ito_close(s);
    return NULL;
}

int main(void)
{
    signal(SIGALRM, on_alarm);
    setenv("ITO_FINALIZE_GRACE_MS", "200", 1);
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++) {
        setenv("ITO_WSC_BACKEND", ito_test_backends[b], 1);
        CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
        ua = (struct sockaddr_un){.sun_family = AF_UNIX};
        snprintf(ua.sun_path, sizeof ua.sun_path, "/tmp/test_io_connect_unix_backlog.%d.%d", (int)getpid(), b);
        unlink(ua.sun_path);
        int ls = socket(AF_UNIX, SOCK_STREAM, 0);
        CHECK_EQ(bind(ls, (struct sockaddr *)&ua, sizeof ua), 0);
        CHECK_EQ(listen(ls, 0), 0);
        int fill[4], nfill = 0;
        for (int i = 0; i < 4; i++) { /* until the backlog refuses (EAGAIN) */
            fill[nfill] = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
            int r = connect(fill[nfill], (struct sockaddr *)&ua, sizeof ua);
            nfill++;
            if (r < 0) {
                CHECK_EQ(errno, EAGAIN);
                break;
            }
        }
        ito_thread_t t[3];
        CHECK_OK(ito_create(&t[0], conn, (void *)0, NULL));
        CHECK_OK(ito_join(t[0], NULL));
        atomic_store(&parked, 0);
        CHECK_OK(ito_create(&t[1], conn, (void *)1, NULL));
        while (atomic_load(&parked) < 1) ito_sleep_ns(1000000);
        ito_sleep_ns(20000000);
        CHECK_OK(ito_cancel_io(t[1]));
        CHECK_OK(ito_join(t[1], NULL));
        atomic_store(&parked, 0);
        atomic_store(&fin_errno, 0);
        CHECK_OK(ito_create(&t[2], conn, (void *)2, NULL));
        CHECK_OK(ito_detach(t[2]));
        while (atomic_load(&parked) < 1) ito_sleep_ns(1000000);
        ito_sleep_ns(20000000);
        alarm(15);
        CHECK_OK(ito_finalize());
        alarm(0);
        CHECK_EQ(atomic_load(&fin_errno), ECANCELED);
        for (int i = 0; i < nfill; i++) close(fill[i]);
        close(ls);
        unlink(ua.sun_path);
    }
    unsetenv("ITO_WSC_BACKEND");
    TEST_DONE();
}
