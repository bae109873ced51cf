#define _GNU_SOURCE /* open_memstream */
/* gdb_target: the program tests/gdb/gdb_check.sh debugs. It parks two named ULTs in
 * functions of its own (one on a mutex, one on a channel), leaves one finished and not
 * joined, then calls gdb_stop_here() from main, where gdb stops and runs the extension's
 * commands; afterwards it wakes and joins everything and prints "gdb_target: ok", which
 * shows that `ito bt` gave the registers of the thread back. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ito/ito.h"

static ito_mutex_t m;
static ito_chan_t *c;

__attribute__((noinline)) void gdb_stop_here(void) { __asm__ volatile("" ::: "memory"); }

__attribute__((noinline)) static int wait_here_for_mutex(void)
{
    int rc = ito_mutex_lock(&m);
    if (rc == ITO_OK) rc = ito_mutex_unlock(&m);
    __asm__ volatile("" ::: "memory"); /* not a tail call: keep this frame */
    return rc;
}

static void *parked_one(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)wait_here_for_mutex();
}

__attribute__((noinline)) static int wait_on_channel(void)
{
    int v = 0;
    int rc = ito_chan_recv(c, &v);
    __asm__ volatile("" ::: "memory");
    return rc == ITO_OK ? v - 5 : rc;
}

static void *chan_waiter(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)wait_on_channel();
}

static void *finished_one(void *arg) { return arg; }

static ito_thread_t named(const char *name, void *(*fn)(void *))
{
    ito_attr_t a;
    ito_attr_init(&a);
    a.name = name;
    ito_thread_t t = NULL;
    if (ito_create(&t, fn, NULL, &a) != ITO_OK) {
        fprintf(stderr, "gdb_target: create failed\n");
        return NULL;
    }
    return t;
}

int main(void)
{
    if (ito_init(NULL) != ITO_OK || ito_mutex_init(&m) != ITO_OK || ito_chan_create(&c, sizeof(int), 0) != ITO_OK)
        return 1;
    ito_mutex_lock(&m);
    ito_thread_t a = named("parked-one", parked_one), b = named("chan-waiter", chan_waiter),
                 f = named("quick-one", finished_one);
    /* until both are parked and the third has finished */
    for (;;) {
        char *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        ito_dump_threads(mem);
        fclose(mem);
        int ready = strstr(text, "mutex") && strstr(text, "chan recv") && strstr(text, "finished");
        free(text);
        if (ready) break;
        ito_yield();
    }
    gdb_stop_here();
    ito_mutex_unlock(&m);
    int five = 5;
    ito_chan_send(c, &five);
    void *ra, *rb;
    int rc = ito_join(a, &ra) | ito_join(b, &rb) | ito_join(f, NULL);
    ito_chan_destroy(c);
    ito_mutex_destroy(&m);
    rc |= ito_finalize();
    if (rc || ra || rb) return 1;
    printf("gdb_target: ok\n");
    return 0;
}
