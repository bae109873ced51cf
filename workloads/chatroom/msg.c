/* msg.c: the chatroom's message format and the small helpers every part shares. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "chat.h"

#define MAGIC 0x43484154u /* "CHAT" */

noreturn void chat_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "chatroom: FATAL: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(3);
}

static uint32_t checksum(const chat_msg_t *m)
{
    uint32_t h = 2166136261u ^ m->room ^ ((uint32_t)m->sender << 16) ^ m->seq * 2654435761u;
    for (size_t i = 0; i < sizeof m->body; i++) h = (h ^ m->body[i]) * 16777619u;
    return h;
}

void chat_msg_make(chat_msg_t *m, int room, int sender, int seq)
{
    m->magic = MAGIC;
    m->room = (uint16_t)room;
    m->sender = (uint16_t)sender;
    m->seq = (uint32_t)seq;
    for (size_t i = 0; i < sizeof m->body; i++) m->body[i] = (unsigned char)(room * 31 + sender * 7 + seq + i);
    m->sum = checksum(m);
}

int chat_msg_check(const chat_msg_t *m)
{
    return m->magic == MAGIC && m->sum == checksum(m) ? 0 : -1;
}

int chat_read_full(int fd, void *buf, long len)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = recv(fd, p, (size_t)len, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        len -= n;
    }
    return 0;
}

int chat_write_full(int fd, const void *buf, long len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = send(fd, p, (size_t)len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        len -= n;
    }
    return 0;
}

uint64_t chat_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void chat_pin(int cpu)
{
    if (cpu < 0) return;
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    if (sched_setaffinity(0, sizeof s, &s) != 0) chat_die("sched_setaffinity(%d): %s", cpu, strerror(errno));
}

uint64_t chat_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
