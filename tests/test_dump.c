/* test_dump: ito_dump_threads lists every ULT with its id, name, state, worker and what it
 * waits on: main running, ULTs blocked on a mutex, a channel and a sleep, one finished and
 * not joined; joined ULTs are gone; it works from a foreign pthread; errors (EINVAL, ESTATE). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_mutex_t m;
static ito_chan_t *c;

static void *on_mutex(void *arg)
{
    (void)arg;
    CHECK_OK(ito_mutex_lock(&m));
    CHECK_OK(ito_mutex_unlock(&m));
    return NULL;
}

static void *on_chan(void *arg)
{
    (void)arg;
    int v;
    CHECK_OK(ito_chan_recv(c, &v));
    return NULL;
}

static void *sleeper(void *arg)
{
    (void)arg;
    CHECK_OK(ito_sleep_ns(300000000)); /* 0.3 s: finalize waits for the end of it */
    return NULL;
}

static void *quick(void *arg) { return arg; }

static char *dump(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f != NULL);
    CHECK_OK(ito_dump_threads(f));
    CHECK(fclose(f) == 0);
    return text;
}

/* Whether the line of the ULT named `name` shows `state` and ends with `waits`. */
static bool has(const char *text, const char *name, const char *state, const char *waits)
{
    char key[64];
    snprintf(key, sizeof key, " %s ", name);
    const char *p = strstr(text, key);
    if (!p) return false;
    char line[256];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(p, "\n"), p);
    size_t lw = strlen(line), ww = strlen(waits);
    return strstr(line, state) != NULL && lw >= ww && strcmp(line + lw - ww, waits) == 0;
}

static void expect(const char *text, const char *name, const char *state, const char *waits)
{
    if (!has(text, name, state, waits)) fprintf(stderr, "expected %s %s %s in:\n%s", name, state, waits, text);
    CHECK(has(text, name, state, waits));
}

static ito_thread_t named(const char *name, void *(*fn)(void *))
{
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.name = name;
    ito_thread_t t;
    CHECK_OK(ito_create(&t, fn, NULL, &a));
    return t;
}

static void *foreign(void *arg)
{
    char *text = dump();
    *(char **)arg = text;
    return NULL;
}

int main(void)
{
    CHECK_EQ(ito_dump_threads(stdout), ITO_ESTATE); /* no runtime yet */
    CHECK_OK(ito_init(NULL));
    CHECK_EQ(ito_dump_threads(NULL), ITO_EINVAL);
    CHECK_OK(ito_mutex_init(&m));
    CHECK_OK(ito_chan_create(&c, sizeof(int), 1));
    CHECK_OK(ito_mutex_lock(&m));
    ito_thread_t tm = named("waits-mutex", on_mutex), tc = named("waits-chan", on_chan),
                 ts = named("sleeps", sleeper), tq = named("done-early", quick);
    uint64_t id;
    CHECK_OK(ito_thread_id(tq, &id));
    /* Until all four have parked or finished (the dump itself tells). */
    char *text = NULL;
    for (int tries = 0;; tries++) {
        free(text);
        text = dump();
        if (has(text, "done-early", "finished", "-") && has(text, "waits-mutex", "blocked", "mutex") &&
            has(text, "waits-chan", "blocked", "chan recv") && has(text, "sleeps", "blocked", "sleep"))
            break;
        CHECK(tries < 100000);
        CHECK_OK(ito_yield());
    }
    fputs(text, stdout);
    expect(text, "main", "running", "-");
    expect(text, "waits-mutex", "blocked", "mutex");
    expect(text, "waits-chan", "blocked", "chan recv");
    expect(text, "sleeps", "blocked", "sleep");
    expect(text, "done-early", "finished", "-");
    CHECK(strstr(text, "worker 0") != NULL);
    char idtext[32];
    snprintf(idtext, sizeof idtext, "  %llu ", (unsigned long long)id);
    CHECK(strstr(text, idtext) != NULL); /* ids are printed */
    free(text);

    pthread_t pt;
    char *ftext = NULL;
    CHECK_EQ(pthread_create(&pt, NULL, foreign, &ftext), 0);
    CHECK_EQ(pthread_join(pt, NULL), 0);
    CHECK(ftext && strstr(ftext, "waits-chan") != NULL);
    free(ftext);

    CHECK_OK(ito_join(tq, NULL));
    CHECK_OK(ito_mutex_unlock(&m));
    CHECK_OK(ito_join(tm, NULL));
    int v = 1;
    CHECK_OK(ito_chan_send(c, &v));
    CHECK_OK(ito_join(tc, NULL));
    text = dump();
    CHECK(strstr(text, "done-early") == NULL); /* joined: gone */
    CHECK(strstr(text, "waits-mutex") == NULL);
    free(text);
    CHECK_OK(ito_join(ts, NULL));
    CHECK_OK(ito_chan_destroy(c));
    CHECK_OK(ito_mutex_destroy(&m));
    CHECK_OK(ito_finalize());
    CHECK_EQ(ito_dump_threads(stdout), ITO_ESTATE);
    TEST_DONE();
}
