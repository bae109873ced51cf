/* test_io_poll_eintr: ito_poll with a zero timeout never fails with EINTR, on both
 * backends. A signal that arrives while poll(2) scans descriptors of which none is ready
 * makes the kernel return EINTR even with a zero timeout; with preemption on, ito's own
 * tick (SIGURG) is such a signal, so ito_poll returned -1/EINTR to programs that never
 * asked for signals. The test sends a signal of its own (a handler with SA_RESTART, as
 * ito's tick has) to the worker's thread every 30 us while the ULT polls 400
 * descriptors that never become ready, so that it runs in every tree (the sanitizer
 * trees refuse signal preemption). Counts, not times: every call returns 0. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "io_test.h"

#define PIPES 200
#define CALLS 20000

static _Atomic int polling;    /* the ULT's worker thread is in the loop */
static _Atomic int done;
static _Atomic unsigned long signals;
static pthread_t worker_thread;

static void on_usr1(int sig) { (void)sig; }

static void *sender(void *arg)
{
    (void)arg;
    while (!atomic_load(&polling)) sched_yield();
    while (!atomic_load(&done)) {
        pthread_kill(worker_thread, SIGUSR1);
        atomic_fetch_add(&signals, 1);
        /* one every 30 us, about a 100 us quantum's tick rate times three: a flood would
         * starve the poll itself (each retry interrupted again) */
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do clock_gettime(CLOCK_MONOTONIC, &t);
        while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 30000 && !atomic_load(&done));
    }
    return NULL;
}

static void *body(void *arg)
{
    (void)arg;
    static int p[PIPES][2];
    static struct pollfd fds[PIPES];
    for (int i = 0; i < PIPES; i++) {
        CHECK_EQ(pipe(p[i]), 0);
        fds[i] = (struct pollfd){.fd = p[i][0], .events = POLLIN};
    }
    worker_thread = pthread_self(); /* main is bound; a ULT that moves only dilutes the test */
    atomic_store(&done, 0);
    pthread_t s;
    CHECK_EQ(pthread_create(&s, NULL, sender, NULL), 0);
    atomic_store(&polling, 1);
    int bad = 0, err = 0;
    for (int i = 0; i < CALLS; i++) {
        int r = ito_poll(fds, PIPES, 0);
        if (r != 0) {
            bad++;
            err = errno;
        }
    }
    atomic_store(&done, 1);
    atomic_store(&polling, 0);
    CHECK_EQ(pthread_join(s, NULL), 0);
    if (bad) fprintf(stderr, "ito_poll failed %d of %d times (errno %d)\n", bad, CALLS, err);
    CHECK_EQ(bad, 0);
    CHECK(atomic_load(&signals) > 0);
    for (int i = 0; i < PIPES; i++) {
        close(p[i][0]);
        close(p[i][1]);
    }
    return NULL;
}

int main(void)
{
    struct sigaction sa = {.sa_handler = on_usr1, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
    io_each_backend(body, 1);
    TEST_DONE();
}
