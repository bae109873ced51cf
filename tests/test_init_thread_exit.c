/* test_init_thread_exit: a worker's kernel thread that ends while the runtime runs.
 * 1. The thread that called ito_init is the main ULT and worker 0's kernel thread. One
 *    that ends without ito_finalize leaves a runtime nobody can finalize; before, that
 *    happened silently. Now one line on stderr says so (thread.h, ito_init), the process
 *    goes on (no crash, no hang: the other threads get ITO_ENOTULT), and a thread that
 *    finalizes first ends without the line.
 * 2. pthread_exit in a ULT ends the kernel thread of the worker it runs on. Before, the
 *    ULT, its worker and what was queued there vanished and the join and ito_finalize
 *    waited for ever (on worker 1; on worker 0 the process's main thread ended and the
 *    process hung). Now the worker's thread-specific destructor names the ULT on stderr
 *    and aborts (runtime.c, thread_ended).
 * Each case runs in a child process whose stderr the parent reads. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
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

/* Runs body(arg) in a child process (it ends with _exit; an alarm ends a hang) and
 * returns the child's wait status; err gets what it wrote on stderr (NUL-terminated). */
static int in_child(void (*body)(int), int arg, char *err, size_t cap)
{
    int p[2];
    CHECK_EQ(pipe(p), 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        alarm(20); /* a hang fails the case (SIGALRM) */
        dup2(p[1], 2);
        close(p[0]);
        body(arg);
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
    return st;
}

/* Case 1: a pthread starts the runtime and ends, having finalized it or not. */
static void init_thread_ends(int fin)
{
    finalize_first = fin;
    pthread_t th;
    if (pthread_create(&th, NULL, starter, NULL) != 0 || pthread_join(th, NULL) != 0) _exit(6);
    /* the main thread is foreign to that runtime: refused, never hung */
    int want = fin ? ITO_ESTATE : ITO_ENOTULT;
    if (ito_finalize() != want) _exit(7);
    if (ito_create(NULL, empty, NULL, NULL) != want) _exit(8);
    if (fin && (ito_init(NULL) != ITO_OK || ito_finalize() != ITO_OK)) _exit(9); /* reusable */
}

static void *calls_pthread_exit(void *arg)
{
    pthread_exit(arg);
}

/* Case 2: a ULT on `worker` calls pthread_exit. */
static void ult_pthread_exits(int worker)
{
    ito_config_t cfg = {.workers = 2};
    if (ito_init(&cfg) != ITO_OK) _exit(3);
    ito_attr_t a;
    ito_attr_init(&a);
    a.worker = worker;
    ito_thread_t t;
    if (ito_create(&t, calls_pthread_exit, NULL, &a) != ITO_OK) _exit(4);
    ito_join(t, NULL); /* never returns: the process aborts meanwhile */
    _exit(5);
}

static void check_pthread_exit_case(int worker)
{
    char err[1024];
    int st = in_child(ult_pthread_exits, worker, err, sizeof err);
#if defined(ITOI_TSAN) /* the TSan tree (tests/CMakeLists.txt) */
    /* TSan's own pthread_exit interceptor refuses a call on a fiber first (a CHECK that
     * ends the process with a report naming pthread_exit): it must end, not hang. */
    CHECK(!(WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM));
    CHECK(strstr(err, "pthread_exit") != NULL);
#else
    CHECK(WIFSIGNALED(st));
    if (WIFSIGNALED(st)) CHECK_EQ(WTERMSIG(st), SIGABRT);
    CHECK(strstr(err, "pthread_exit in a ULT?") != NULL);
#endif
}

int main(void)
{
    char err[1024];
    int st = in_child(init_thread_ends, 0, err, sizeof err);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(strstr(err, "the thread that called ito_init ended without ito_finalize") != NULL);
    st = in_child(init_thread_ends, 1, err, sizeof err);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(strstr(err, "ended without ito_finalize") == NULL);
    check_pthread_exit_case(1);
    check_pthread_exit_case(0);
    TEST_DONE();
}
