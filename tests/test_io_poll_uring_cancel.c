/* test_io_poll_uring_cancel: a wait of ito_poll that io_uring ends by itself with
 * -ECANCELED (it gave the request up before running it: area.c, itoi_wsc_complete) is
 * waited again, as a single wrapper runs such a request again (syscall.h, EAGAIN), and is
 * not the caller's ECANCELED (that is ito_cancel_io's or finalize's). Found by a tester
 * sweeping ITO_FAULT_URING_CANCEL over a program (2026-12-05): ito_poll returned -1 with
 * ECANCELED. ITO_FAULT_URING_CANCEL=N makes the N-th request queued to io_uring a NOP the
 * kernel ends -ECANCELED (fault.c); here the first requests are ito_poll's waits on three
 * pipes, one of which a ULT makes readable 20 ms later with write(2). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int pp[3][2];
static int skipped;

static void *late_writer(void *arg)
{
    (void)arg;
    CHECK_OK(ito_sleep_ns(20 * 1000 * 1000));
    CHECK_EQ(write(pp[1][1], "x", 1), 1); /* write(2): no io_uring request */
    return NULL;
}

static void *poller(void *arg)
{
    (void)arg;
    if (ito_wsc_backend() != ITO_WSC_URING) {
        skipped = 1;
        return NULL;
    }
    struct pollfd pf[3];
    for (int i = 0; i < 3; i++) pf[i] = (struct pollfd){.fd = pp[i][0], .events = POLLIN};
    ito_thread_t w;
    CHECK_OK(ito_create(&w, late_writer, NULL, NULL));
    errno = 0;
    int r = ito_poll(pf, 3, 5000);
    if (r < 0 && errno == EINVAL) { /* a kernel before 6.10: no injected NOP result */
        printf("the kernel cannot inject a NOP's result: skipped\n");
        skipped = 1;
        CHECK_OK(ito_join(w, NULL));
        return NULL;
    }
    if (r < 0) fprintf(stderr, "ito_poll: -1, errno %d\n", errno);
    CHECK_EQ(r, 1);
    CHECK(pf[1].revents & POLLIN);
    CHECK_OK(ito_join(w, NULL));
    return NULL;
}

int main(void)
{
    for (int n = 1; n <= 4 && !skipped; n++) {
        for (int i = 0; i < 3; i++) CHECK_EQ(pipe(pp[i]), 0);
        char v[8];
        snprintf(v, sizeof v, "%d", n);
        setenv("ITO_WSC_BACKEND", "uring", 1);
        setenv("ITO_FAULT_URING_CANCEL", v, 1);
        int rc = ito_init(&(ito_config_t){.workers = 1});
        unsetenv("ITO_FAULT_URING_CANCEL");
        unsetenv("ITO_WSC_BACKEND");
        if (rc == ITO_ENOSYS) { /* no io_uring here: nothing to test */
            printf("io_uring refused: skipped\n");
            TEST_DONE();
        }
        CHECK_OK(rc);
        ito_thread_t t;
        CHECK_OK(ito_create(&t, poller, NULL, NULL));
        CHECK_OK(ito_join(t, NULL));
        CHECK_OK(ito_finalize());
        for (int i = 0; i < 3; i++) {
            close(pp[i][0]);
            close(pp[i][1]);
        }
    }
    TEST_DONE();
}
