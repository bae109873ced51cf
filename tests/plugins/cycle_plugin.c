/* cycle_plugin: a C library that runs a whole runtime per call (ito_init, ULTs that sleep
 * and pass bytes through a pipe, ito_finalize), or starts one and leaves it up; loaded and
 * unloaded again and again by test_dlclose_libito (linked with the shared libito) and
 * test_dlclose_static_key (with libito.a inside). */
#include <ito/ito.h>
#include <unistd.h>

static void *writer(void *arg)
{
    int fd = *(int *)arg;
    char b[256] = {1};
    for (int i = 0; i < 16; i++)
        if (ito_write(fd, b, sizeof b) != (ssize_t)sizeof b) return (void *)1;
    return NULL;
}

static void *reader(void *arg)
{
    int fd = *(int *)arg;
    char b[256];
    size_t got = 0;
    while (got < 16 * sizeof b) {
        ssize_t n = ito_read(fd, b, sizeof b);
        if (n <= 0) return (void *)1;
        got += (size_t)n;
    }
    return ito_sleep_ns(1000000) == ITO_OK ? NULL : (void *)1;
}

static void *nap(void *arg)
{
    (void)arg;
    return ito_sleep_ns(1000000) == ITO_OK ? NULL : (void *)1;
}

/* 0 when the runtime ran and finalized */
int plugin_cycle(void)
{
    ito_config_t cfg = {.workers = 2};
    if (ito_init(&cfg) != ITO_OK) return 1;
    int p[2], bad = 0;
    if (pipe(p) != 0) return 2;
    ito_thread_t t[2];
    void *r[2] = {NULL, NULL};
    if (ito_create(&t[0], reader, &p[0], NULL) != ITO_OK || ito_create(&t[1], writer, &p[1], NULL) != ITO_OK) return 3;
    for (int i = 0; i < 2; i++)
        if (ito_join(t[i], &r[i]) != ITO_OK || r[i]) bad = 4;
    close(p[0]);
    close(p[1]);
    return ito_finalize() == ITO_OK ? bad : 5;
}

/* 0 when the runtime is up, ticking (preemption in FLAG mode, which the sanitizers allow:
 * its SIGURG handler is libito's) and ran a ULT; it stays up (no ito_finalize) */
int plugin_start(void)
{
    ito_config_t cfg = {.workers = 2};
    if (ito_init(&cfg) != ITO_OK) return 1;
    ito_preempt_config_t pc = {.mode = ITO_PREEMPT_FLAG, .quantum_us = 1000};
    if (ito_preempt_enable(&pc) != ITO_OK) return 4;
    ito_thread_t t;
    void *r = (void *)1;
    if (ito_create(&t, nap, NULL, NULL) != ITO_OK || ito_join(t, &r) != ITO_OK) return 2;
    return r ? 3 : 0;
}
