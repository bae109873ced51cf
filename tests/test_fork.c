/* test_fork: the child of fork() is shut out of the runtime it inherited (thread.h), and
 * the parent is unaffected. The child's copy shares the parent's io_uring rings and epoll
 * sets and holds the parent's queued ULTs: before, a blocking wrapper in the child spun at
 * 100 % for ever (its registered ring fd is not valid there: every io_uring_enter failed
 * and was retried), a child's finalize with a ULT parked on another worker never
 * returned, and a child's yield could run the parent's ULTs a second time. Now every call
 * in the child fails at once (ITO_ESTATE / ITO_ENOTULT; wrappers -1 with EPERM), from the
 * main ULT and from a ULT on another worker alike; the parent's I/O and finalize go on. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int pipefd[2];
static _Atomic int parked_got;
static ito_thread_t reader; /* parked in the parent */
static ito_frame_t *frame;
static ito_chan_t *chan;

static void *parked_reader(void *unused)
{
    (void)unused;
    char c;
    atomic_store(&parked_got, (int)ito_read(pipefd[0], &c, 1));
    return NULL;
}

/* What the child may do with the runtime: nothing. Returns the failed checks. */
static int child_checks(void)
{
    alarm(20); /* the old library spun or hung here */
    char c;
    errno = 0;
    CHECK_EQ(ito_read(pipefd[0], &c, 1), -1);
    CHECK_EQ(errno, EPERM);
    CHECK_EQ(ito_yield(), ITO_ENOTULT);
    CHECK_EQ(ito_create(NULL, parked_reader, NULL, NULL), ITO_ESTATE);
    ito_stats_t st;
    CHECK_EQ(ito_stats(&st), ITO_ESTATE);
    CHECK_EQ(ito_initialized(), 0);
    CHECK_EQ(ito_finalize(), ITO_ESTATE);
    CHECK_EQ(ito_init(NULL), ITO_ESTATE);
    /* the runtime's own handles are refused as after ito_finalize (thread.h; until
     * 2026-12-06 thread.h said ito_thread_id and a frame's destroy acted on the copy) */
    uint64_t id;
    char name[16];
    CHECK_EQ(ito_thread_id(reader, &id), ITO_EJOINED);
    CHECK_EQ(ito_thread_name(reader, name, sizeof name), ITO_EJOINED);
    CHECK_EQ(ito_continue(frame, 0), ITO_ESTATE);
    CHECK_EQ(ito_frame_destroy(frame), ITO_EINVAL);
    CHECK(ito_frame_data(frame) == NULL); /* NULL for a refused frame (zwt.h; until 2026-12-07
                                           * the child got its copy's data pointer, h75a) */
    /* what works without a runtime acts on the child's copy */
    ito_chan_stats_t cs;
    CHECK_OK(ito_chan_stats(chan, &cs));
    CHECK_OK(ito_chan_destroy(chan));
    ito_key_t k;
    CHECK_OK(ito_key_create(&k, NULL));
    CHECK_OK(ito_key_delete(k));
    return ito_test_failures;
}

static void fork_and_check(void)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) _exit(child_checks() ? 1 : 0);
    int st = 0;
    CHECK_EQ(waitpid(pid, &st, 0), pid);
    CHECK(WIFEXITED(st)); /* not killed by its alarm */
    CHECK_EQ(WEXITSTATUS(st), 0);
}

static void *forker(void *unused)
{
    (void)unused;
    fork_and_check();
    return NULL;
}

int main(void)
{
    ito_config_t cfg = {.workers = 2};
    CHECK_OK(ito_init(&cfg));
    CHECK_EQ(pipe(pipefd), 0);
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.worker = 1;
    ito_thread_t other;
    CHECK_OK(ito_create(&reader, parked_reader, NULL, &a)); /* parked on worker 1 */
    CHECK_OK(ito_frame_create(&frame, 1, 0));
    CHECK_OK(ito_entry_set(frame, 0, NULL, 1, ITO_MODE_USER));
    CHECK_OK(ito_chan_create(&chan, 8, 4));
    for (int i = 0; i < 100; i++) ito_yield();
    fork_and_check();                                     /* from the main ULT */
    CHECK_OK(ito_create(&other, forker, NULL, &a));       /* from a ULT on worker 1 */
    CHECK_OK(ito_join(other, NULL));
    /* the parent goes on: its parked reader gets its byte, finalize returns */
    CHECK_EQ(ito_write(pipefd[1], "x", 1), 1);
    CHECK_OK(ito_join(reader, NULL));
    CHECK_EQ(atomic_load(&parked_got), 1);
    CHECK_OK(ito_chan_destroy(chan)); /* the children destroyed their copies only */
    CHECK_OK(ito_frame_destroy(frame));
    CHECK_OK(ito_finalize());
    close(pipefd[0]);
    close(pipefd[1]);
    /* without a runtime, a child may start its own */
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        alarm(20);
        int ok = ito_init(NULL) == ITO_OK && ito_finalize() == ITO_OK;
        _exit(ok ? 0 : 1);
    }
    int st = 0;
    CHECK_EQ(waitpid(pid, &st, 0), pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    TEST_DONE();
}
