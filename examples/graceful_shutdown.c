/* graceful_shutdown: a TCP server that stops on SIGTERM or SIGINT without dropping work.
 *
 * A client sends one line, the milliseconds a job takes; the server answers "started" at
 * once and "done <ms>" when the job ends, then closes (the job stands for a call to a
 * back end: an ito_poll of no descriptor waits out its time). One ULT per connection.
 *
 * Shutdown, the way syscall.h gives it: the signals are blocked before ito_init (the
 * workers inherit the mask) and main waits for them in ito_read of a signalfd. Then it
 * stops the accept loop (a stop flag, ito_cancel_io of the acceptor, join, close the
 * listening socket: new connections are refused), gives the connections in flight until
 * a deadline to finish (a wait group), cancels the I/O of those still running (their
 * clients get no reply), and calls ito_finalize.
 *
 *   graceful_shutdown [grace_ms]     (default 5000)
 * prints "graceful_shutdown: listening on 127.0.0.1:<port>", on the signal
 * "graceful_shutdown: stopping, <n> in flight", and at the end
 * "graceful_shutdown: <served> served, <cut> cut at the deadline"; exits 0.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/signalfd.h>
#include <sys/socket.h>

#include <ito/ito.h>

#define MAX_CONNS 1024

static int lfd;
static atomic_bool stopping;
static ito_waitgroup_t in_flight;
static ito_mutex_t lock;                /* guards conns */
static ito_thread_t conns[MAX_CONNS];   /* the ULT serving each descriptor, NULL: none */
static atomic_int served;

/* One connection: read the job, run it, reply; any failure (a cancellation) ends it. */
static void *serve(void *arg)
{
    int fd = (int)(intptr_t)arg;
    char line[32], reply[48];
    ssize_t n = ito_recv(fd, line, sizeof line - 1, 0);
    if (n > 0 && ito_send(fd, "started\n", 8, 0) == 8) {
        line[n] = '\0';
        int ms = atoi(line);
        /* the job; -1/ECANCELED when cut at the deadline */
        if (ito_poll(NULL, 0, ms) == 0) {
            int len = snprintf(reply, sizeof reply, "done %d\n", ms);
            if (ito_send(fd, reply, (size_t)len, 0) == len) atomic_fetch_add(&served, 1);
        }
    }
    ito_mutex_lock(&lock);
    conns[fd] = NULL;
    ito_mutex_unlock(&lock);
    ito_close(fd);
    ito_waitgroup_done(&in_flight);
    return NULL;
}

/* The accept loop: the stop flag is looked at before every accept (syscall.h: the
 * cancellation ends whichever wrapper call comes next). */
static void *acceptor(void *arg)
{
    (void)arg;
    ito_attr_t detached;
    ito_attr_init(&detached);
    detached.flags = ITO_ATTR_DETACHED;
    while (!atomic_load(&stopping)) {
        int fd = ito_accept(lfd, NULL, NULL);
        if (fd < 0) { /* ECANCELED: stopping is set; else (EMFILE...) a moment, then again */
            if (errno != ECANCELED) ito_sleep_ns(10 * 1000000);
            continue;
        }
        if (fd >= MAX_CONNS) {
            ito_close(fd);
            continue;
        }
        ito_waitgroup_add(&in_flight, 1);
        ito_mutex_lock(&lock); /* the ULT is in conns before it can end */
        if (ito_create(&conns[fd], serve, (void *)(intptr_t)fd, &detached) != ITO_OK) {
            conns[fd] = NULL;
            ito_close(fd);
            ito_waitgroup_done(&in_flight);
        }
        ito_mutex_unlock(&lock);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int grace_ms = argc > 1 ? atoi(argv[1]) : 5000;
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL); /* before ito_init: the workers inherit it */
    int sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
    if (sfd < 0 || ito_init(NULL) != ITO_OK) return 1;
    ito_waitgroup_init(&in_flight);
    ito_mutex_init(&lock);

    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof addr;
    lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(lfd, 128) != 0 ||
        getsockname(lfd, (struct sockaddr *)&addr, &len) != 0) {
        perror("graceful_shutdown: listen");
        return 1;
    }
    printf("graceful_shutdown: listening on 127.0.0.1:%d\n", ntohs(addr.sin_port));
    fflush(stdout);
    ito_thread_t acc;
    ito_create(&acc, acceptor, NULL, NULL);

    struct signalfd_siginfo si; /* main is a ULT: only it waits here, its worker runs the rest */
    if (ito_read(sfd, &si, sizeof si) != (ssize_t)sizeof si) return 1;

    /* Stop accepting: flag first, then cancel, join, and only then close (syscall.h). */
    atomic_store(&stopping, true);
    ito_cancel_io(acc);
    ito_join(acc, NULL);
    ito_close(lfd);
    int64_t open_now = 0;
    ito_waitgroup_count(&in_flight, &open_now);
    printf("graceful_shutdown: stopping, %lld in flight\n", (long long)open_now);
    fflush(stdout);

    /* The connections in flight finish by the deadline, or are cut. */
    int cut = 0;
    if (ito_waitgroup_wait_until(&in_flight, ito_deadline_in((uint64_t)grace_ms * 1000000u)) != ITO_OK) {
        ito_mutex_lock(&lock);
        for (int fd = 0; fd < MAX_CONNS; fd++)
            if (conns[fd]) cut += ito_cancel_io(conns[fd]) == ITO_OK;
        ito_mutex_unlock(&lock);
        ito_waitgroup_wait(&in_flight);
    }
    ito_waitgroup_destroy(&in_flight);
    ito_mutex_destroy(&lock);
    ito_finalize();
    printf("graceful_shutdown: %d served, %d cut at the deadline\n", atomic_load(&served), cut);
    return 0;
}
