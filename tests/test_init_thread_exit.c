/* test_init_thread_exit: the thread that called ito_init is the main ULT and worker 0's
 * kernel thread. One that ends without ito_finalize leaves a runtime nobody can finalize;
 * before, that happened silently. Now one line on stderr says so (thread.h, ito_init), the
 * process goes on (no crash, no hang: the other threads get ITO_ENOTULT), and a thread
 * that finalizes first ends without the line. Each case runs in a child process whose
 * stderr the parent reads. */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int finalize_first;

static void *empty(void *arg) { return arg; }

static void *starter(void *unused)
{
    (void)unused;
    ito_config_t cfg = {.workers = 2};
    if (ito_init(&cfg) != ITO_OK) _exit(3);
    ito_thread_t t;
    if (ito_create(&t, empty, NULL, NULL) != ITO_OK || ito_join(t, NULL) != ITO_OK) _exit(4);
    if (finalize_first && ito_finalize() != ITO_OK) _exit(5);
    return NULL; /* the thread ends: with the runtime running unless finalize_first */
}

/* Runs one case in a child; returns what the child wrote on stderr (NUL-terminated). */
static void run_case(int fin, char *err, size_t cap)
{
    int p[2];
    CHECK_EQ(pipe(p), 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        alarm(20); /* a hang fails the case */
        dup2(p[1], 2);
        close(p[0]);
        finalize_first = fin;
        pthread_t th;
        if (pthread_create(&th, NULL, starter, NULL) != 0 || pthread_join(th, NULL) != 0) _exit(6);
        /* the main thread is foreign to that runtime: refused, never hung */
        int want = fin ? ITO_ESTATE : ITO_ENOTULT;
        if (ito_finalize() != want) _exit(7);
        if (ito_create(NULL, empty, NULL, NULL) != (fin ? ITO_ESTATE : ITO_ENOTULT)) _exit(8);
        if (fin && (ito_init(NULL) != ITO_OK || ito_finalize() != ITO_OK)) _exit(9); /* reusable */
        _exit(0);
    }
    close(p[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < cap && (r = read(p[0], err + n, cap - 1 - n)) > 0) n += (size_t)r;
    err[n] = 0;
    close(p[0]);
    int st = 0;
    CHECK_EQ(waitpid(pid, &st, 0), pid);
    CHECK(WIFEXITED(st));
    CHECK_EQ(WEXITSTATUS(st), 0);
}

int main(void)
{
    char err[1024];
    run_case(0, err, sizeof err);
    CHECK(strstr(err, "the thread that called ito_init ended without ito_finalize") != NULL);
    run_case(1, err, sizeof err);
    CHECK(strstr(err, "ended without ito_finalize") == NULL);
    TEST_DONE();
}
