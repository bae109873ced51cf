/* job_runner: a parallel job runner (as xargs -P): a ULT per child process.
 *
 * Each job ULT starts `/bin/sh -c CMD` with posix_spawn, its stdin, stdout and stderr on
 * pipes made close-on-exec (so no other job's child inherits them), and then, without
 * blocking its worker: a feeder ULT writes the job's input with ito_write; the job ULT
 * reads stdout and stderr with ito_poll and ito_read, and waits for the child's end on
 * its pidfd (readable once the child has ended) in the same ito_poll, reaping it with
 * waitid(P_PIDFD). A job that runs past its time is killed, and its pipes are drained.
 * A semaphore bounds the children alive at once. SIGPIPE is ignored: a child that stops
 * reading its stdin makes ito_write fail with EPIPE instead of ending the runner.
 *
 *   job_runner             prints "job_runner: 24 jobs, 22 exited 0, 1 killed, 1 failed, 130 bytes out"
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ito/ito.h>

#define JOBS 24
#define AT_ONCE 8
#define INPUT (256 << 10)       /* bytes fed to each child's stdin */
#define TIME_LIMIT_MS 5000

extern char **environ;

typedef struct job {
    const char *cmd;
    int in, out, err, pidfd; /* our ends of its pipes, its pidfd */
    size_t out_bytes;
    int status; /* exit status, or 128 + the signal */
} job_t;

static ito_sem_t slots;
static char input[INPUT];

static int start(job_t *j)
{
    int in[2], out[2], err[2];
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0); /* dup2 clears close-on-exec */
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    char *argv[] = {"/bin/sh", "-c", (char *)j->cmd, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    close(err[1]);
    j->in = in[1];
    j->out = out[0];
    j->err = err[0];
    j->pidfd = rc ? -1 : (int)syscall(SYS_pidfd_open, pid, 0);
    return j->pidfd < 0 ? -1 : 0;
}

static void *feed(void *arg)
{
    job_t *j = arg;
    ito_write(j->in, input, sizeof input); /* EPIPE if the child stopped reading */
    ito_close(j->in);
    return NULL;
}

static void *run(void *arg)
{
    job_t *j = arg;
    ito_sem_wait(&slots);
    j->status = -1;
    if (start(j) != 0) {
        ito_sem_post(&slots);
        return NULL;
    }
    ito_thread_t feeder;
    ito_create(&feeder, feed, j, NULL);
    uint64_t deadline = ito_deadline_in((uint64_t)TIME_LIMIT_MS * 1000000);
    bool killed = false;
    char buf[1024];
    struct pollfd p[3] = {{j->out, POLLIN, 0}, {j->err, POLLIN, 0}, {j->pidfd, POLLIN, 0}};
    while (p[0].fd >= 0 || p[1].fd >= 0 || p[2].fd >= 0) {
        uint64_t now = ito_now_ns();
        int ms = killed ? -1 : now >= deadline ? 0 : (int)((deadline - now) / 1000000) + 1;
        int n = ito_poll(p, 3, ms);
        if (n < 0) break;
        if (n == 0) { /* past its time */
            syscall(SYS_pidfd_send_signal, j->pidfd, SIGKILL, NULL, 0);
            killed = true;
            continue;
        }
        for (int k = 0; k < 2; k++) {
            if (!p[k].revents) continue;
            ssize_t r = ito_read(p[k].fd, buf, sizeof buf);
            if (r > 0 && k == 0) j->out_bytes += (size_t)r;
            if (r <= 0) p[k].fd = -1; /* end of file: the child (and what it started) closed it */
        }
        siginfo_t si = {0};
        if (p[2].revents && waitid(P_PIDFD, (id_t)j->pidfd, &si, WEXITED | WNOHANG) == 0 && si.si_pid) {
            j->status = si.si_code == CLD_EXITED ? si.si_status : 128 + si.si_status;
            p[2].fd = -1;
        }
    }
    ito_join(feeder, NULL);
    ito_close(j->out);
    ito_close(j->err);
    close(j->pidfd);
    ito_sem_post(&slots);
    return NULL;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    if (ito_init(NULL) != ITO_OK) return 1;
    ito_sem_init(&slots, AT_ONCE);
    job_t jobs[JOBS] = {{0}};
    ito_thread_t t[JOBS];
    for (int i = 0; i < JOBS; i++) {
        jobs[i].cmd = i == 5    ? "exec sleep 60"                        /* hangs: killed */
                      : i == 9  ? "head -c 1 >/dev/null; exit 3"         /* stops reading, fails */
                      : i % 2   ? "wc -c"                                /* "262144\n": 7 bytes */
                                : "wc -c >/dev/null; echo done; echo note >&2"; /* "done\n": 5 bytes */
        ito_create(&t[i], run, &jobs[i], NULL);
    }
    int ok = 0, killed = 0, failed = 0;
    size_t out = 0;
    for (int i = 0; i < JOBS; i++) {
        ito_join(t[i], NULL);
        ok += jobs[i].status == 0;
        killed += jobs[i].status == 128 + SIGKILL;
        failed += jobs[i].status != 0 && jobs[i].status != 128 + SIGKILL;
        out += jobs[i].out_bytes;
    }
    ito_sem_destroy(&slots);
    ito_finalize();
    printf("job_runner: %d jobs, %d exited 0, %d killed, %d failed, %zu bytes out\n", JOBS, ok, killed, failed, out);
    return 0;
}
