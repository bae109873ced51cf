/* test_io_connect_shutdown: a connect that another thread aborts with shutdown(2) fails
 * with ECONNRESET on both backends, as connect(2) on a blocking socket does. Found by a
 * tester (2026-12-05): the sync backend asked connect(2) again after the wake-up, which
 * on the socket the shutdown had left unconnected began a new attempt, and the wrapper
 * went on waiting (it connected once the listener had room: 0 instead of ECONNRESET).
 * The listener's accept queue is kept full so that the connect waits. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "ito_test_net.h"
#include "io_test.h"

static int c;

static void *aborter(void *arg)
{
    (void)arg;
    usleep(200 * 1000);
    CHECK_EQ(shutdown(c, SHUT_RDWR), 0);
    return NULL;
}

static void *body(void *arg)
{
    (void)arg;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof sa;
    int l = socket(AF_INET, SOCK_STREAM, 0);
    CHECK_EQ(bind(l, (void *)&sa, sizeof sa), 0);
    CHECK_EQ(listen(l, 0), 0);
    CHECK_EQ(getsockname(l, (void *)&sa, &al), 0);
    int fill[2];
    for (int i = 0; i < 2; i++) { /* the accept queue full: the next SYN is dropped */
        fill[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        connect(fill[i], (void *)&sa, sizeof sa);
    }
    CHECK_OK(ito_sleep_ns(50 * 1000 * 1000));
    c = socket(AF_INET, SOCK_STREAM, 0);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, aborter, NULL), 0);
    CHECK_OK(ito_io_deadline(ito_deadline_in(5ull * 1000000000ull))); /* the old code: ETIMEDOUT */
    errno = 0;
    CHECK_EQ(ito_connect(c, (void *)&sa, sizeof sa), -1);
    CHECK_EQ(errno, ECONNRESET);
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    CHECK_EQ(pthread_join(t, NULL), 0);
    close(c);
    for (int i = 0; i < 2; i++) close(fill[i]);
    close(l);
    return NULL;
}

int main(void)
{
    io_each_backend(body, 0);
    TEST_DONE();
}
