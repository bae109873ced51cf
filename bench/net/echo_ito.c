/* echo_ito: the loopback echo server on ito, as a user would write it: one ULT accepts,
 * one ULT per connection reads and writes back with the blocking wrappers (ito_recv,
 * ito_send), default settings (workers = CPUs, the default WSC policy).
 *
 *   echo_ito PORT [N]   (prints "READY <port>" once listening; runs until killed, or
 *                        until N connections have closed: then it prints its statistics
 *                        on stderr and exits 0) */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/tcp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#include "echo_listen.h"
#include "ito/ito.h"

static long exit_after;
static _Atomic long closed;

static void report_and_exit(void)
{
    ito_stats_t st;
    ito_wsc_stats_t ws;
    ito_stats(&st);
    ito_wsc_stats(&ws);
    fprintf(stderr, "STATS switches=%llu steals=%llu sleeps=%llu idles=%llu spin_ms=%.1f posted=%llu crossings=%llu "
                    "flush_idle=%llu flush_threshold=%llu flush_latency=%llu\n",
            (unsigned long long)st.switches, (unsigned long long)st.steals, (unsigned long long)st.sleeps,
            (unsigned long long)st.idles, st.idle_spin_ns / 1e6,
            (unsigned long long)ws.posted, (unsigned long long)ws.crossings, (unsigned long long)ws.flush_idle,
            (unsigned long long)ws.flush_threshold, (unsigned long long)ws.flush_latency);
    exit(0);
}

static void *connection(void *arg)
{
    int fd = (int)(intptr_t)arg;
    char buf[16384]; /* on the ULT's stack (64 KiB by default) */
    for (;;) {
        ssize_t n = ito_recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        for (ssize_t off = 0; off < n;) {
            ssize_t m = ito_send(fd, buf + off, (size_t)(n - off), 0);
            if (m <= 0) goto out;
            off += m;
        }
    }
out:
    ito_close(fd);
    if (exit_after && atomic_fetch_add(&closed, 1) + 1 == exit_after) report_and_exit();
    return NULL;
}

int main(int argc, char **argv)
{
    if (ito_init(NULL) != ITO_OK) return 1;
    int lfd = echo_listen(argc > 1 ? atoi(argv[1]) : 0);
    exit_after = argc > 2 ? atol(argv[2]) : 0;
    ito_attr_t a;
    ito_attr_init(&a);
    a.flags = ITO_ATTR_DETACHED;
    for (;;) {
        int fd = ito_accept(lfd, NULL, NULL);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE) ito_sleep_ns(1000000);
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (ito_create(NULL, connection, (void *)(intptr_t)fd, &a) != ITO_OK) ito_close(fd);
    }
}
