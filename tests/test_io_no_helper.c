/* test_io_no_helper: the sync backend's regular-file calls when no helper thread can be
 * started (RLIMIT_NPROC reached, a pids cgroup full): they fail at once with EAGAIN, and
 * finalize returns. Before, the request was queued for a helper that never came:
 * ito_pread (past the page cache) and ito_fsync waited for ever (or until the I/O deadline), ito_openat never
 * returned, and ito_finalize (which waits for regular-file requests) hung too.
 *
 * A child process limits itself to one task (as root it first becomes nobody, since root
 * is not bound by RLIMIT_NPROC) and runs one worker, so the runtime needs no thread of its
 * own; the test checks that thread creation really fails there, else it says so and
 * passes without having proved anything (a machine where the limit cannot be set). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define SKIP 77

static int fd;
static char path[] = "/tmp/ito_no_helper_XXXXXX";

static void *nothing(void *unused) { return unused; }

static void *file_calls(void *unused)
{
    (void)unused;
    char b[16];
    errno = 0;
    ssize_t n = ito_pread(fd, b, sizeof b, 0); /* from the page cache without a helper, or EAGAIN */
    CHECK(n == (ssize_t)sizeof b || (n == -1 && errno == EAGAIN));
    errno = 0;
    CHECK_EQ(ito_fsync(fd), -1);
    CHECK_EQ(errno, EAGAIN);
    errno = 0;
    CHECK_EQ(ito_openat(AT_FDCWD, path, O_RDONLY, 0), -1);
    CHECK_EQ(errno, EAGAIN);
    return NULL;
}

static int child(void)
{
    if (getuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) return SKIP;
    struct rlimit one = {1, 1};
    if (setrlimit(RLIMIT_NPROC, &one) != 0) return SKIP;
    pthread_t t;
    if (pthread_create(&t, NULL, nothing, NULL) == 0) { /* not limited here */
        pthread_join(t, NULL);
        return SKIP;
    }
    alarm(30); /* the old library hangs here: end it as a failure */
    setenv("ITO_WSC_BACKEND", "sync", 1);
    ito_test_main_ult(&(ito_config_t){.workers = 1}, file_calls);
    return ito_test_failures ? 1 : 0;
}

int main(void)
{
    fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK_EQ(fchmod(fd, 0644), 0);
    CHECK_EQ(write(fd, "0123456789abcdef", 16), 16);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) _exit(child());
    int st = 0;
    CHECK_EQ(waitpid(pid, &st, 0), pid);
    unlink(path);
    CHECK(WIFEXITED(st)); /* killed by the alarm: a hang */
    if (WEXITSTATUS(st) == SKIP) printf("test_io_no_helper: thread creation could not be limited here: nothing proved\n");
    else CHECK_EQ(WEXITSTATUS(st), 0);
    TEST_DONE();
}
