/* test_io_close_reuse: ito_close does not end waits on the next file that takes the same
 * number. ito_close publishes the number it is closing so that waits registered during
 * the close end themselves (test_io_close_race); it used to withdraw the number only
 * after close(2) had returned, so a ULT on another worker that got the freed number from
 * socket(2) or accept(2) in between and parked in a wrapper was woken with EBADF on a
 * healthy descriptor (an echo server on the wrappers: 5 of 2,400 connections ended that
 * way). Here one ULT opens and ito_closes sockets in a loop on worker 0 while another on
 * worker 1 opens sockets (the lowest free numbers: often the one just closed) and waits in
 * ito_recv with a short I/O deadline: every wait must end with ETIMEDOUT, never EBADF.
 * Both backends. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define ROUNDS 4000

static _Atomic int stop;
static _Atomic long closes, waits, wrong;

static void *churner(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        int sv[2];
        CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
        CHECK_EQ(ito_close(sv[0]), 0);
        CHECK_EQ(close(sv[1]), 0);
        atomic_fetch_add(&closes, 1);
    }
    return NULL;
}

static void *waiter(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        int sv[2];
        char b[8];
        CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
        CHECK_OK(ito_io_deadline(ito_deadline_in(20000))); /* 20 us */
        ssize_t r = ito_recv(sv[0], b, sizeof b, 0);
        int e = errno;
        CHECK_OK(ito_io_deadline(0));
        if (r != -1 || e != ETIMEDOUT) atomic_fetch_add(&wrong, 1); /* checked at the end */
        close(sv[0]);
        close(sv[1]);
        atomic_fetch_add(&waits, 1);
    }
    atomic_store(&stop, 1);
    return NULL;
}

static void round_on(const char *backend)
{
    atomic_store(&stop, 0);
    atomic_store(&wrong, 0);
    atomic_store(&waits, 0);
    atomic_store(&closes, 0);
    ito_thread_t c, w;
    ito_attr_t a;
    ito_attr_init(&a);
    a.worker = 0;
    CHECK_OK(ito_create(&c, churner, NULL, &a));
    a.worker = 1;
    CHECK_OK(ito_create(&w, waiter, NULL, &a));
    CHECK_OK(ito_join(w, NULL));
    CHECK_OK(ito_join(c, NULL));
    printf("%s: %ld waits, %ld closes alongside, %ld ended otherwise than ETIMEDOUT\n", backend, (long)waits,
           (long)closes, (long)wrong);
    CHECK_EQ(atomic_load(&wrong), 0);
}

int main(void)
{
    ito_test_each_backend(2, round_on);
    TEST_DONE();
}
