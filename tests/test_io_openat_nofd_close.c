/* test_io_openat_nofd_close: an ito_openat relative to a directory descriptor, run by a
 * helper thread (sync backend) while the process has no descriptor left for the helper's
 * duplicate of the directory (EMFILE), creates its file in the directory it was posted
 * for, even when another ULT closes the directory's number with ito_close and opens
 * another directory that takes the number meanwhile. The helper then uses the bare
 * number, and ito_close must wait for its call as for a regular file's (until 2026-12-06
 * the helper dropped its busy mark of the number at once in that case: the close went
 * through, the number was reused, and the file was created in the other directory; found
 * reviewing the fix of test_io_helper_keeps_locks, 2026-12-06). ITO_FAULT_HELPER=1 holds
 * the helper 50 ms after it took the number (test builds), so the close and the reuse
 * fall inside its call. A round where the close came before the helper took the request
 * (the request is then cancelled: EBADF or ECANCELED), or where the helper took it only
 * after main had freed a descriptor for the open (its duplicate took that one, and the
 * open failed with EMFILE: 5 runs in 60 with the machine loaded, h70a), checks nothing
 * and is run again. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static char base[] = "/tmp/ito_openat_nofd_XXXXXX";
static char d1[64], d2[64];
static int dirfd_, res, err_;

static void *opener(void *arg)
{
    (void)arg;
    res = ito_openat(dirfd_, "victim", O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    err_ = errno;
    return NULL;
}

static int exists_in(const char *dir)
{
    char p[96];
    snprintf(p, sizeof p, "%s/victim", dir);
    return access(p, F_OK) == 0;
}

/* One round; 1 if it checked the rule, 0 if the close came first. */
static int round_once(void)
{
    dirfd_ = open(d1, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
    CHECK(dirfd_ >= 0);
    setenv("ITO_WSC_BACKEND", "sync", 1);
    setenv("ITO_FAULT_HELPER", "1", 1);
    CHECK_OK(ito_init(NULL));
    ito_test_warm_worker(0); /* the worker's own descriptors (its epoll, made lazily) */
    /* Use up every descriptor, so that the helper's duplicate fails with EMFILE. */
    static int fill[4096];
    int nfill = 0;
    struct rlimit old, lim;
    CHECK_EQ(getrlimit(RLIMIT_NOFILE, &old), 0);
    lim = old;
    lim.rlim_cur = 256;
    CHECK_EQ(setrlimit(RLIMIT_NOFILE, &lim), 0);
    for (int f; nfill < 4096 && (f = dup(2)) >= 0;) fill[nfill++] = f;
    CHECK_EQ(errno, EMFILE);
    CHECK(nfill > 0);
    ito_thread_t th;
    CHECK_OK(ito_create(&th, opener, NULL, NULL));
    CHECK_OK(ito_sleep_ns(30 * 1000 * 1000)); /* the helper has taken the number (it pauses 50 ms) */
    close(fill[--nfill]); /* room for the open's own descriptor */
    int was = dirfd_;
    CHECK_EQ(ito_close(was), 0);
    int other = open(d2, O_DIRECTORY | O_RDONLY | O_CLOEXEC); /* takes the lowest number: dirfd's */
    CHECK(other >= 0);
    CHECK_OK(ito_join(th, NULL));
    int checked = 0;
    if (res >= 0) {
        CHECK_EQ(exists_in(d1), 1); /* the directory it was posted for */
        CHECK_EQ(exists_in(d2), 0);
        close(res);
        checked = 1;
    } else {
        if (err_ != EBADF && err_ != ECANCELED && err_ != EMFILE) fprintf(stderr, "openat: %s\n", strerror(err_));
        /* closed before the helper took it, or taken after the room was made */
        CHECK(err_ == EBADF || err_ == ECANCELED || err_ == EMFILE);
        CHECK_EQ(exists_in(d1) + exists_in(d2), 0);
    }
    close(other);
    while (nfill > 0) close(fill[--nfill]);
    CHECK_EQ(setrlimit(RLIMIT_NOFILE, &old), 0);
    CHECK_OK(ito_finalize());
    unsetenv("ITO_FAULT_HELPER");
    char p[96];
    snprintf(p, sizeof p, "%s/victim", d1);
    unlink(p);
    snprintf(p, sizeof p, "%s/victim", d2);
    unlink(p);
    return checked;
}

int main(void)
{
    CHECK(mkdtemp(base) != NULL);
    snprintf(d1, sizeof d1, "%s/a", base);
    snprintf(d2, sizeof d2, "%s/b", base);
    CHECK_EQ(mkdir(d1, 0700), 0);
    CHECK_EQ(mkdir(d2, 0700), 0);
    int checked = 0;
    for (int i = 0; i < 20 && checked < 2; i++) checked += round_once();
    CHECK(checked > 0);
    rmdir(d1);
    rmdir(d2);
    rmdir(base);
    TEST_DONE();
}
