/* test_io_accept_not_listening: ito_accept on a socket that does not listen fails with
 * EINVAL and leaves the socket's mode as it was, on both backends. Found by a tester
 * (2026-12-05): the sync backend made the socket O_NONBLOCK before accept4 failed, so a
 * connected socket used with plain calls afterwards no longer blocked. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "ito_test_net.h"
#include "io_test.h"

static void *body(void *arg)
{
    (void)arg;
    int x, y;
    ito_test_tcp_pair(&x, &y);
    int fl = fcntl(x, F_GETFL);
    CHECK(fl >= 0 && !(fl & O_NONBLOCK));
    errno = 0;
    CHECK_EQ(ito_accept(x, NULL, NULL), -1);
    CHECK_EQ(errno, EINVAL);
    CHECK_EQ(fcntl(x, F_GETFL), fl); /* unchanged */
    int u = socket(AF_INET, SOCK_STREAM, 0); /* nor an unbound one */
    errno = 0;
    CHECK_EQ(ito_accept(u, NULL, NULL), -1);
    CHECK_EQ(errno, EINVAL);
    CHECK(!(fcntl(u, F_GETFL) & O_NONBLOCK));
    close(u);
    close(x);
    close(y);
    return NULL;
}

int main(void)
{
    io_each_backend(body, 0);
    TEST_DONE();
}
