/* test_io_finalize_openat: ito_finalize does not cancel an ito_openat of a regular file,
 * which ends by itself (src/wsc/area.c fini_match, open_may_block), both backends, 1 and 2
 * workers. Found on 2026-12-04 by a finalize tester: every openat still in flight at the
 * cancel pass was cancelled, so with ITO_FINALIZE_GRACE_MS=0 most detached ULTs that open,
 * write and close a file as finalize begins got ECANCELED from the open and their files
 * were never written (136-157 of 160 with one worker). Here 20 init/finalize cycles of 8
 * such ULTs each, grace 0: every file must hold its bytes. A FIFO's open still counts as
 * one that may wait for ever: test_io_openat_fifo. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define ULTS 8
#define LEN 65536

static char dir[64];
static _Atomic int failed;

static void path_of(long i, char *p, size_t n) { snprintf(p, n, "%s/f%ld", dir, i); }

static void *writer(void *arg)
{
    long i = (long)arg;
    char p[96];
    path_of(i, p, sizeof p);
    static char buf[ULTS][LEN];
    memset(buf[i], 'a' + (int)i, LEN);
    int fd = ito_openat(AT_FDCWD, p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) {
        atomic_fetch_add(&failed, 1);
        return NULL;
    }
    CHECK_EQ(ito_write(fd, buf[i], LEN), LEN);
    CHECK_EQ(ito_close(fd), 0);
    return NULL;
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/ito_fin_openat_%d", (int)getpid());
    CHECK_EQ(mkdir(dir, 0700), 0);
    CHECK_OK(setenv("ITO_FINALIZE_GRACE_MS", "0", 1));
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++)
        for (int workers = 1; workers <= 2; workers++)
            for (int cycle = 0; cycle < 20; cycle++) {
                CHECK_OK(setenv("ITO_WSC_BACKEND", ito_test_backends[b], 1));
                CHECK_OK(ito_init(&(ito_config_t){.workers = workers}));
                ito_attr_t at;
                CHECK_OK(ito_attr_init(&at));
                at.flags = ITO_ATTR_DETACHED;
                for (long i = 0; i < ULTS; i++) CHECK_OK(ito_create(NULL, writer, (void *)i, &at));
                CHECK_OK(ito_finalize());
                for (long i = 0; i < ULTS; i++) {
                    char p[96];
                    struct stat st;
                    path_of(i, p, sizeof p);
                    CHECK(stat(p, &st) == 0 && st.st_size == LEN);
                    unlink(p);
                }
            }
    CHECK_EQ(atomic_load(&failed), 0);
    rmdir(dir);
    TEST_DONE();
}
