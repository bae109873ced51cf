/* test_io_uring_refused_late: a seccomp filter that refuses io_uring_enter, installed
 * after ito_init (a program that sandboxes itself once started), does not hang the
 * runtime. Found by a tester (2026-12-05): the worker retried the failing submit for
 * ever at 100 % CPU, and the ULT's ito_write and ito_finalize never returned. Now
 * (syscall.h): the requests queued then fail with the refusal's errno (EPERM), later ones
 * run as on the sync backend, and a request the kernel took before completes as before.
 * Runs in a fork child: a filter cannot be removed. */
#define _GNU_SOURCE
#define ITO_TEST_SECCOMP
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int in[2], out[2];
static atomic_int reader_parked;

static void *reader(void *arg) /* posted and taken by the kernel before the filter */
{
    (void)arg;
    char c = 0;
    atomic_store(&reader_parked, 1);
    CHECK_EQ(ito_read(in[0], &c, 1), 1);
    CHECK_EQ(c, 'r');
    return NULL;
}

static void *writer(void *arg)
{
    (void)arg;
    /* the first request after the filter: queued, refused with the enter (EPERM), or
     * already run as on the sync backend if another worker's refusal came first */
    errno = 0;
    ssize_t n = ito_write(out[1], "a", 1);
    CHECK(n == 1 || (n == -1 && errno == EPERM));
    /* from now on as the sync backend: every byte arrives */
    for (int i = 0; i < 100; i++) CHECK_EQ(ito_write(out[1], "b", 1), 1);
    size_t want = 100 + (n == 1), got = 0;
    char buf[128];
    while (got < want) {
        ssize_t r = ito_read(out[0], buf, sizeof buf);
        CHECK(r > 0);
        for (ssize_t i = 0; i < r; i++) CHECK_EQ(buf[i], got + (size_t)i == 0 && n == 1 ? 'a' : 'b');
        got += (size_t)r;
    }
    CHECK_EQ(got, want);
    return NULL;
}

static void child(void)
{
    CHECK_OK(setenv("ITO_WSC_BACKEND", "uring", 1));
    int rc = ito_init(&(ito_config_t){.workers = 2});
    if (rc == ITO_ENOSYS) _exit(77); /* no io_uring here */
    CHECK_OK(rc);
    CHECK_OK(pipe(in));
    CHECK_OK(pipe(out));
    ito_thread_t r, w;
    CHECK_OK(ito_create(&r, reader, NULL, NULL));
    while (!atomic_load(&reader_parked)) CHECK_OK(ito_yield());
    CHECK_OK(ito_sleep_ns(20 * 1000 * 1000)); /* its read is in the kernel's hands */

    ito_test_deny_syscall(__NR_io_uring_enter);
    CHECK_OK(ito_create(&w, writer, NULL, NULL));
    int jr = ito_join_until(w, NULL, ito_deadline_in(20ull * 1000000000ull));
    if (jr != ITO_OK) fprintf(stderr, "the writer did not end in 20 s (the old hang)\n");
    CHECK_OK(jr);
    CHECK_EQ(write(in[1], "r", 1), 1); /* the read taken before the filter completes */
    CHECK_OK(ito_join_until(r, NULL, ito_deadline_in(20ull * 1000000000ull)));
    /* and nobody spins: 200 ms of waiting cost well under 200 ms of CPU */
    double cpu1 = ito_test_cpu_seconds();
    CHECK_OK(ito_sleep_ns(200 * 1000 * 1000));
    double spent = ito_test_cpu_seconds() - cpu1;
    if (spent > 0.1) fprintf(stderr, "idle workers used %.3f s of CPU in 0.2 s\n", spent);
    CHECK(spent < 0.1);
    CHECK_OK(ito_finalize());
    _exit(0);
}

int main(void)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) child();
    int st;
    CHECK_EQ(waitpid(pid, &st, 0), pid);
    CHECK(WIFEXITED(st));
    if (WEXITSTATUS(st) == 77) {
        printf("skipped: no io_uring\n");
        TEST_DONE();
    }
    CHECK_EQ(WEXITSTATUS(st), 0);
    TEST_DONE();
}
