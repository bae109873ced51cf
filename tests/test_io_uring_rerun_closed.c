/* test_io_uring_rerun_closed: a wrapper whose request io_uring gave up before running it
 * (-ECANCELED that nobody asked for: it could not start an io-wq worker, as while a
 * preemption tick is pending) runs it again (syscall.h, EAGAIN) -- but not on a file that
 * took the number after another ULT's ito_close. syscall.h: a wait that ito_close ends
 * gets EBADF; only a call made after ito_close returned uses what the number names then.
 * Until 2026-12-05 the run again went to the new file: ULT W's ito_pwrite on file a was
 * given up (ITO_FAULT_URING_CANCEL=2, the second request queued to io_uring); ULT C, woken
 * by the same reap just before W, closed a with ito_close (W's record was done, so the
 * close's pass did not see it) and opened b, which took the number; W then wrote its 4096
 * bytes into b and returned 4096 (a server's reply would go to another client's
 * connection). Found by an outside tester, h62b, 2026-12-05; failed 3 of 3 runs without
 * the fix. Now W ends with EBADF and b stays empty. Part 2: the same through
 * ito_sys_wait_all, which posts a given-up request again too (its result: -EBADF). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int pr[2], fda, fdb = -1;
static char pa[64], pb[64];
static long wres;
static int werr, part;

static void *closer(void *arg)
{
    (void)arg;
    char b;
    CHECK_EQ(ito_read(pr[0], &b, 1), 1); /* the first request queued; completes in W's reap */
    CHECK_EQ(ito_close(fda), 0);
    fdb = open(pb, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fdb >= 0);
    return NULL;
}

static void *writer(void *arg)
{
    (void)arg;
    static char buf[4096];
    memset(buf, 'W', sizeof buf);
    if (part == 0) {
        wres = ito_pwrite(fda, buf, sizeof buf, 0); /* the second: given up by "io_uring" */
        werr = errno;
    } else {
        ito_sysreq_t q = {.op = ITO_SYS_PWRITE, .fd = fda, .buf = buf, .len = sizeof buf, .result = &wres};
        CHECK_OK(ito_sys_wait_all(&q, 1));
        werr = wres < 0 ? (int)-wres : 0;
        if (wres < 0) wres = -1;
    }
    return NULL;
}

static off_t size_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

int main(void)
{
    setenv("ITO_WSC_BACKEND", "uring", 1);
    setenv("ITO_FAULT_URING_CANCEL", "2", 1);
    snprintf(pa, sizeof pa, "/tmp/ito_rrc_a_%d", (int)getpid());
    snprintf(pb, sizeof pb, "/tmp/ito_rrc_b_%d", (int)getpid());
    for (part = 0; part < 2; part++) {
        CHECK(pipe(pr) == 0);
        CHECK(write(pr[1], "x", 1) == 1);
        fda = open(pa, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        CHECK(fda >= 0);
        ito_config_t cfg = {.workers = 1}; /* C and W queue on one worker, C first */
        int rc = ito_init(&cfg);
        if (rc == ITO_ENOSYS) { /* no io_uring here */
            unlink(pa);
            printf("skipped: no io_uring\n");
            TEST_DONE();
        }
        CHECK_OK(rc);
        ito_thread_t c, w;
        CHECK_OK(ito_create(&c, closer, NULL, NULL));
        CHECK_OK(ito_create(&w, writer, NULL, NULL));
        CHECK_OK(ito_join(c, NULL));
        CHECK_OK(ito_join(w, NULL));
        CHECK_OK(ito_finalize());
        fprintf(stderr, "part %d: fda %d fdb %d: W %ld errno %d; a %lld bytes, b %lld bytes\n", part, fda, fdb, wres,
                wres < 0 ? werr : 0, (long long)size_of(pa), (long long)size_of(pb));
        CHECK_EQ(size_of(pb), 0); /* nothing of W's in the file that took the number */
        if (fdb == fda) {         /* the case this test is about: the number was taken again */
            CHECK_EQ(wres, -1);
            CHECK_EQ(werr, EBADF);
            CHECK_EQ(size_of(pa), 0);
        }
        close(fdb);
        close(pr[0]);
        close(pr[1]);
        unlink(pa);
        unlink(pb);
    }
    TEST_DONE();
}
