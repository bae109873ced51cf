/* test_io_openat_fifo: ito_openat of a FIFO never waits for the other end, on both
 * backends alike (src/wsc/nonblock.c, helper_openat). Found by a chaos test (2026-12-03):
 * on the sync backend an open for reading with no writer blocked a helper thread for
 * ever (a deadline, ito_cancel_io and finalize could not end it, and four such opens held
 * every helper, so an unrelated ito_fsync timed out), while io_uring's openat returned at
 * once. Now both: a reader opens at once (in blocking mode, as asked), a writer without a
 * reader fails with ENXIO, a writer with one opens; bytes then flow through the wrappers. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "io_test.h"

static char dir[] = "/tmp/ito_openat_fifo_XXXXXX";

static void *body(void *arg)
{
    (void)arg;
    char path[64];
    snprintf(path, sizeof path, "%s/f", dir);
    CHECK_EQ(mkfifo(path, 0600), 0);
    CHECK_OK(ito_io_deadline(ito_deadline_in(5ull * 1000 * 1000 * 1000))); /* a regression fails, never hangs */
    errno = 0;
    CHECK_EQ(ito_openat(AT_FDCWD, path, O_WRONLY | O_CLOEXEC, 0), -1); /* no reader */
    CHECK_EQ(errno, ENXIO);
    int r = ito_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0); /* no writer: at once */
    CHECK(r >= 0);
    CHECK_EQ(fcntl(r, F_GETFL) & O_NONBLOCK, 0);
    int w = ito_openat(AT_FDCWD, path, O_WRONLY | O_CLOEXEC, 0);
    CHECK(w >= 0);
    CHECK_EQ(fcntl(w, F_GETFL) & O_NONBLOCK, 0);
    CHECK_EQ(ito_write(w, "fifo", 4), 4);
    char b[8];
    CHECK_EQ(ito_read(r, b, sizeof b), 4);
    CHECK(!memcmp(b, "fifo", 4));
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    close(w);
    close(r);
    unlink(path);
    return NULL;
}

int main(void)
{
    CHECK(mkdtemp(dir) != NULL);
    io_each_backend(body, 0);
    rmdir(dir);
    TEST_DONE();
}
