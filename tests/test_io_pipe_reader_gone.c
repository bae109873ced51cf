/* test_io_pipe_reader_gone: a write that waits for room in a pipe ends as soon as the read
 * end goes away (write(2): EPIPE; a whole transfer returns the count so far, the next call
 * fails with EPIPE). The pipe's write end then reports only POLLERR, an event the waiter
 * did not ask for: the sync backend must deliver POLLERR/POLLHUP to every waiter
 * (ready.c). Delivering only the asked-for events left the write waiting until its
 * deadline (and the worker re-arming the error in a loop meanwhile), and no test saw it
 * (found by mutation testing, h60e, 2026-12-05). Both backends. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito/syscall.h"
#include "ito_test.h"

#define BIG (1u << 20)

static int p[2];

static void *closer(void *arg)
{
    (void)arg;
    ito_test_sleep_us(100000); /* the write waits for room */
    close(p[0]);
    return NULL;
}

static void *body(void *arg)
{
    (void)arg;
    char *buf = calloc(1, BIG);
    CHECK(buf != NULL);
    CHECK_EQ(pipe(p), 0);
    pthread_t c;
    CHECK_EQ(pthread_create(&c, NULL, closer, NULL), 0);
    CHECK_OK(ito_io_deadline(ito_deadline_in(5000000000ull)));
    uint64_t t0 = ito_now_ns();
    ssize_t n = ito_write(p[1], buf, BIG);
    uint64_t took = ito_now_ns() - t0;
    CHECK(n > 0 && n < (ssize_t)BIG); /* the pipe's capacity moved, then the reader left */
    CHECK(took < 2000000000ull);       /* ended by the reader's close, not by the deadline */
    errno = 0;
    CHECK_EQ(ito_write(p[1], buf, BIG), -1);
    CHECK_EQ(errno, EPIPE);
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    CHECK_EQ(pthread_join(c, NULL), 0);
    close(p[1]);
    free(buf);
    return NULL;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    ito_test_each_backend_ult(1, body);
    TEST_DONE();
}
