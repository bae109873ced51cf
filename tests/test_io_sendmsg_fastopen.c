/* test_io_sendmsg_fastopen: ito_sendmsg with MSG_FASTOPEN (TCP Fast Open) on an
 * unconnected TCP socket behaves as sendmsg(2) on a blocking socket, on both backends: it
 * connects and sends every byte (here 1 MiB, more than the socket takes at once), and a
 * refused connection is -1/ECONNREFUSED. Found by an outside tester, h66c, 2026-12-06 (a
 * proxy opening its backend connection with TFO): the wrapper's one attempt got the
 * kernel's EINPROGRESS (connect started, no cookie, nothing sent) and returned it; the data
 * never went. Without the fix the first CHECK on the count fails on both backends, every
 * run. Needs the client bit of net.ipv4.tcp_fastopen (the default, 1): skipped without. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define LEN (1u << 20)
static unsigned char *msg;
static struct sockaddr_in addr;
static int lfd;

static void *server(void *arg)
{
    (void)arg;
    int c = ito_accept(lfd, NULL, NULL);
    CHECK(c >= 0);
    unsigned char *b = malloc(65536);
    size_t got = 0;
    ssize_t k;
    while ((k = ito_recv(c, b, 65536, 0)) > 0) {
        for (ssize_t i = 0; i < k; i++) CHECK(b[i] == msg[got + (size_t)i]);
        got += (size_t)k;
    }
    CHECK_EQ(k, 0);
    CHECK_EQ(got, LEN);
    free(b);
    CHECK_EQ(ito_close(c), 0);
    return NULL;
}

static void *body(void *arg)
{
    (void)arg;
    lfd = socket(AF_INET, SOCK_STREAM, 0);
    addr = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK_EQ(bind(lfd, (void *)&addr, sizeof addr), 0);
    CHECK_EQ(listen(lfd, 4), 0);
    socklen_t al = sizeof addr;
    CHECK_EQ(getsockname(lfd, (void *)&addr, &al), 0);
    ito_thread_t srv;
    CHECK_OK(ito_create(&srv, server, NULL, NULL));
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct iovec v = {msg, LEN};
    struct msghdr m = {.msg_name = &addr, .msg_namelen = sizeof addr, .msg_iov = &v, .msg_iovlen = 1};
    errno = 0;
    ssize_t w = ito_sendmsg(s, &m, MSG_FASTOPEN);
    if (w < 0) fprintf(stderr, "ito_sendmsg MSG_FASTOPEN: %s\n", strerror(errno));
    CHECK_EQ(w, LEN);
    CHECK_EQ(shutdown(s, SHUT_WR), 0);
    CHECK_OK(ito_join(srv, NULL));
    CHECK_EQ(ito_close(s), 0);
    CHECK_EQ(ito_close(lfd), 0);
    /* refused: the port is free now */
    s = socket(AF_INET, SOCK_STREAM, 0);
    errno = 0;
    CHECK_EQ(ito_sendmsg(s, &m, MSG_FASTOPEN), -1);
    CHECK_EQ(errno, ECONNREFUSED);
    CHECK_EQ(ito_close(s), 0);
    return NULL;
}

int main(void)
{
    FILE *f = fopen("/proc/sys/net/ipv4/tcp_fastopen", "r");
    int tfo = 0;
    if (!f || fscanf(f, "%d", &tfo) != 1 || !(tfo & 1)) {
        printf("skipped: TCP Fast Open's client side is off\n");
        return 0;
    }
    fclose(f);
    msg = malloc(LEN);
    for (size_t i = 0; i < LEN; i++) msg[i] = (unsigned char)(i * 7 + (i >> 9));
    ito_test_each_backend_ult(2, body);
    free(msg);
    TEST_DONE();
}
