/* test_io_kept_error_new_file: a connection reset that ended a whole transfer after a part
 * moved is kept for the next call on the number only while the number still names the same
 * file (src/wsc/whole.c keep_error). A program that closes such a socket with close(2)
 * (not ito_close, which drops the kept error) and gets the number again for a new
 * connection must not see the old connection's reset there: a send on the new socket
 * failed with ECONNRESET when the identity check was dropped, and no test saw it (found by
 * mutation testing, h60e, 2026-12-05). Both backends. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "ito_test_net.h"

static void *body(void *arg)
{
    (void)arg;
    int a, b, c, d;
    char buf[1000];
    pthread_t t;
    ito_test_tcp_pair(&a, &b);
    CHECK_OK(pthread_create(&t, NULL, ito_test_send10_reset, (void *)(intptr_t)b));
    CHECK_EQ(ito_recv(a, buf, sizeof buf, MSG_WAITALL), 10); /* the reset is kept for a */
    CHECK_OK(pthread_join(t, NULL));
    close(a); /* close(2): ito does not see it */
    ito_test_tcp_pair(&c, &d);
    if (c != a) { /* the new connection at the old number (it may have taken it itself) */
        CHECK_EQ(dup2(c, a), a);
        close(c);
    }
    CHECK_EQ(ito_send(a, "hi", 2, 0), 2);
    char r[2];
    CHECK_EQ(recv(d, r, 2, MSG_WAITALL), 2);
    CHECK_EQ(memcmp(r, "hi", 2), 0);
    CHECK_EQ(send(d, "hello", 5, 0), 5);
    CHECK_EQ(ito_recv(a, buf, 5, MSG_WAITALL), 5);
    CHECK_EQ(memcmp(buf, "hello", 5), 0);
    close(d);
    CHECK_EQ(ito_recv(a, buf, 5, 0), 0); /* the new connection's end of file */
    CHECK_EQ(ito_close(a), 0);
    return NULL;
}

int main(void)
{
    ito_test_each_backend_ult(1, body);
    TEST_DONE();
}
