/* test_example_graceful_shutdown: examples/graceful_shutdown stops on a signal without
 * dropping work. The test starts it, opens connections and gives each a job; once every
 * job has started it signals the server, which must stop accepting (a new connect is
 * refused once it says it is stopping), send every reply in flight, and exit 0.
 *  - SIGTERM, deadline 60 s: 8 jobs of 500-850 ms all end with "done <ms>";
 *  - SIGINT, deadline 50 ms: a job of 60 s is cut (the connection ends without a reply)
 *    and the server says so ("0 served, 1 cut").
 * ITO_TEST_EXAMPLE is the example's path (tests/CMakeLists.txt). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ito_test.h"

#define MAXC 8

static FILE *out;  /* the server's stdout */
static pid_t pid;
static struct sockaddr_in addr;

static void start(const char *grace_ms)
{
    int p[2];
    CHECK_EQ(pipe(p), 0);
    fflush(NULL);
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        dup2(p[1], 1);
        close(p[0]);
        close(p[1]);
        execl(ITO_TEST_EXAMPLE, ITO_TEST_EXAMPLE, grace_ms, (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    out = fdopen(p[0], "r");
    CHECK(out != NULL);
    char line[128] = "";
    int port = 0;
    CHECK(fgets(line, sizeof line, out) != NULL);
    CHECK_EQ(sscanf(line, "graceful_shutdown: listening on 127.0.0.1:%d", &port), 1);
    addr = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
}

static int dial(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(fd >= 0);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* Everything the server sends on fd until it closes, NUL ended. */
static void read_all(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    ssize_t r;
    while (n < cap - 1 && (r = read(fd, buf + n, cap - 1 - n)) > 0) n += (size_t)r;
    buf[n] = '\0';
}

/* Give each connection its job and wait until the server has started it. */
static void begin_jobs(int *fd, const int *ms, int n)
{
    for (int i = 0; i < n; i++) {
        fd[i] = dial();
        CHECK(fd[i] >= 0);
        char line[32];
        int len = snprintf(line, sizeof line, "%d\n", ms[i]);
        CHECK_EQ(write(fd[i], line, (size_t)len), len);
    }
    for (int i = 0; i < n; i++) {
        char got[9] = {0};
        for (size_t k = 0; k < 8;) {
            ssize_t r = read(fd[i], got + k, 8 - k);
            CHECK(r > 0);
            if (r <= 0) break;
            k += (size_t)r;
        }
        CHECK(strcmp(got, "started\n") == 0);
    }
}

/* Signal the server, check that it refuses new connections once it says it is stopping
 * with up to `n` in flight, and return its final line after a clean exit. */
static void stop(int sig, int n, char *last, size_t cap)
{
    CHECK_EQ(kill(pid, sig), 0);
    int in_flight = -1;
    CHECK(fgets(last, (int)cap, out) != NULL);
    CHECK_EQ(sscanf(last, "graceful_shutdown: stopping, %d in flight", &in_flight), 1);
    /* a job may end before the signal is read (a loaded machine): at most n, at least one
     * when a job cannot end by itself in time (n == 1 below) */
    CHECK(in_flight >= (n == 1) && in_flight <= n);
    int fd = dial();
    CHECK_EQ(fd, -1);
    CHECK_EQ(errno, ECONNREFUSED);
    CHECK(fgets(last, (int)cap, out) != NULL);
    int st = 0;
    CHECK_EQ(waitpid(pid, &st, 0), pid);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) fprintf(stderr, "server status %#x\n", st);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    fclose(out);
}

int main(void)
{
    int fd[MAXC], ms[MAXC];
    char buf[64], last[128];

    start("60000");
    for (int i = 0; i < MAXC; i++) ms[i] = 500 + 50 * i;
    begin_jobs(fd, ms, MAXC);
    stop(SIGTERM, MAXC, last, sizeof last);
    for (int i = 0; i < MAXC; i++) {
        read_all(fd[i], buf, sizeof buf);
        char want[32];
        snprintf(want, sizeof want, "done %d\n", ms[i]);
        if (strcmp(buf, want) != 0) fprintf(stderr, "connection %d: got \"%s\", want \"%s\"\n", i, buf, want);
        CHECK(strcmp(buf, want) == 0);
        close(fd[i]);
    }
    CHECK(strcmp(last, "graceful_shutdown: 8 served, 0 cut at the deadline\n") == 0);

    start("50");
    begin_jobs(fd, (int[]){60000}, 1);
    stop(SIGINT, 1, last, sizeof last);
    read_all(fd[0], buf, sizeof buf);
    CHECK_EQ(buf[0], '\0'); /* cut: no reply */
    close(fd[0]);
    if (strcmp(last, "graceful_shutdown: 0 served, 1 cut at the deadline\n") != 0) fprintf(stderr, "last line: %s", last);
    CHECK(strcmp(last, "graceful_shutdown: 0 served, 1 cut at the deadline\n") == 0);
    TEST_DONE();
}
