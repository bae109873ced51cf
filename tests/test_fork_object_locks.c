/* test_fork_object_locks: a child forked while other threads create and destroy channels
 * and keys can still create and destroy its own (thread.h: they act on the child's copy).
 * Before the fix the child found the locks of the handle objects' free list, the arena or
 * the key table as the forking moment left them: held by a thread that does not exist in
 * the child, so its create spun for ever (10 of 300 children of a channel-creating thread,
 * 3 %; outside tester h75a, 2026-12-07). Now the forking thread holds those locks across
 * the fork (pthread_atfork). Both with a running runtime and without one. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define FORKS 120

static _Atomic int stop;

static void *churn(void *unused)
{
    (void)unused;
    while (!atomic_load(&stop)) {
        ito_chan_t *c;
        ito_stream_t *s;
        ito_key_t k;
        if (ito_chan_create(&c, 8, 4) == ITO_OK) (void)ito_chan_destroy(c);
        if (ito_stream_create(&s, 64) == ITO_OK) (void)ito_stream_destroy(s);
        if (ito_key_create(&k, NULL) == ITO_OK) (void)ito_key_delete(k);
    }
    return NULL;
}

/* The child: what works there without the runtime, under an alarm (a hang was the bug). */
static void child(void)
{
    alarm(10);
    ito_chan_t *c;
    ito_stream_t *s;
    ito_key_t k;
    int ok = ito_chan_create(&c, 8, 1) == ITO_OK && ito_chan_destroy(c) == ITO_OK &&
             ito_stream_create(&s, 16) == ITO_OK && ito_stream_destroy(s) == ITO_OK &&
             ito_key_create(&k, NULL) == ITO_OK && ito_key_delete(k) == ITO_OK;
    _exit(ok ? 0 : 1);
}

static void forks(int n)
{
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) child();
        int st = 0;
        CHECK_EQ(waitpid(pid, &st, 0), pid);
        CHECK(!WIFSIGNALED(st)); /* SIGALRM: the child spun on a copied lock */
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++) CHECK_EQ(pthread_create(&t[i], NULL, churn, NULL), 0);
    forks(FORKS / 2); /* no runtime: creating channels and keys needs none */
    ito_config_t cfg = {.workers = 2};
    CHECK_OK(ito_init(&cfg));
    forks(FORKS / 2); /* a runtime's child: shut out of it, but its objects work */
    atomic_store(&stop, 1);
    for (int i = 0; i < 2; i++) CHECK_EQ(pthread_join(t[i], NULL), 0);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
