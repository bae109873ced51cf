/* test_io_poll_dup_close: a descriptor listed twice in one ito_poll (say, once for POLLIN
 * and once for POLLOUT) and closed by another ULT with ito_close gets POLLNVAL in both
 * entries (syscall.h). The poller runs on worker 1, the closer on worker 0, both backends.
 * Found by an adversarial test (2026-12-03): on the sync backend the first record's end
 * ended its twin as a sibling (-EALREADY) before the close reached it, and the twin came
 * back 0 (31 of 50 rounds). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define ROUNDS 40

static struct pollfd f[3];

static void *poller(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)ito_poll(f, 3, 10000);
}

static void round_on(const char *backend)
{
    /* Worker 1's common area first: set up lazily by its first request, its io_uring and
     * eventfd would take the lowest free numbers, i.e. the pipe's when the close came
     * before a slow poller began (then the poll waited on the ring: a wait that begins
     * after ito_close returned uses whatever the number names then, syscall.h). */
    ito_test_warm_worker(1);
    for (int it = 0; it < ROUNDS; it++) {
        int p[2], q[2];
        CHECK_EQ(pipe2(p, O_CLOEXEC), 0);
        CHECK_EQ(pipe2(q, O_CLOEXEC), 0);
        f[0] = (struct pollfd){.fd = p[0], .events = POLLIN};
        f[1] = (struct pollfd){.fd = q[0], .events = POLLIN}; /* open and quiet throughout */
        f[2] = (struct pollfd){.fd = p[0], .events = POLLIN | POLLPRI};
        ito_thread_t t;
        ito_test_create_on(&t, 1, poller, NULL);
        CHECK_OK(ito_sleep_ns(2000000)); /* the poll waits: the close wakes it */
        CHECK_EQ(ito_close(p[0]), 0);
        void *rv;
        CHECK_OK(ito_join(t, &rv));
        if ((intptr_t)rv != 2 || f[0].revents != POLLNVAL || f[2].revents != POLLNVAL || f[1].revents)
            fprintf(stderr, "%s round %d: poll %ld revents %#x %#x %#x\n", backend, it, (long)(intptr_t)rv,
                    f[0].revents, f[1].revents, f[2].revents);
        CHECK_EQ((intptr_t)rv, 2);
        CHECK_EQ(f[0].revents, POLLNVAL);
        CHECK_EQ(f[1].revents, 0);
        CHECK_EQ(f[2].revents, POLLNVAL);
        close(p[1]);
        close(q[0]);
        close(q[1]);
    }
}

int main(void)
{
    ito_test_each_backend(2, round_on);
    TEST_DONE();
}
