/* regwin_rt.c: the window manager live in the ULT runtime (src/regwin/regwin_rt.c).
 * This file is compiled with -finstrument-functions: every function below that is not
 * marked NI is a save/restore of the running ULT, checked at its exit.
 *  1. For every scheme, several window counts, with and without the working set: ULTs
 *     recurse to random depths, yield and pass bytes through 1-byte streams at random
 *     points; the run must end without a single window mismatch, with as many restores
 *     as saves, and with the traps and switches the configuration implies.
 *  2. The working-set policy: a ULT woken while it has windows runs before one already
 *     queued (SP, working set on); it does not when the policy is off, nor under NS
 *     (which never leaves windows in the file).
 *  3. Off means off: without attach nothing is counted. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ito/ito.h"
#include "ito/regwin.h"
#include "ito_test.h"

#define NI __attribute__((no_instrument_function))
#define NT 5

static ito_stream_t *tok; /* one byte: whoever puts must also get (never deadlocks) */

NI static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Random depth, random scheduling points; returns a checksum of the path. */
static uint64_t dive(int id, uint64_t *s, int depth)
{
    uint64_t r = rnd(s);
    if (r % 5 == 0) ito_yield();
    if (r % 7 == 0) { /* a token through a 1-byte stream: blocks when another holds it */
        char c = (char)id;
        size_t got;
        CHECK_OK(ito_stream_put(tok, &c, 1));
        CHECK_OK(ito_stream_get(tok, &c, 1, &got));
    }
    if (depth <= 0) return r & 0xff;
    uint64_t sum = 0;
    int kids = 1 + (int)(r % 2);
    for (int k = 0; k < kids; k++) sum += dive(id, s, depth - 1 - (int)(rnd(s) % 2));
    return sum + depth;
}

static void *worker_fn(void *arg)
{
    int id = (int)(intptr_t)arg;
    uint64_t s = 0x9e3779b97f4a7c15ull * (uint64_t)(id + 1);
    uint64_t sum = 0;
    for (int i = 0; i < 40; i++) sum += dive(id, &s, 1 + (int)(rnd(&s) % 9));
    return (void *)(uintptr_t)sum;
}

NI static void run_one(int scheme, int windows, int ws)
{
    ito_regwin_config_t cfg;
    CHECK_OK(ito_regwin_config_init(&cfg));
    cfg.scheme = scheme;
    cfg.windows = windows;
    cfg.working_set = ws;
    CHECK_OK(ito_regwin_configure(&cfg));
    CHECK_OK(ito_regwin_reset_counters());
    CHECK_OK(ito_stream_create(&tok, 1));
    CHECK_OK(ito_regwin_attach());
    ito_thread_t t[NT];
    for (int i = 0; i < NT; i++) CHECK_OK(ito_create(&t[i], worker_fn, (void *)(intptr_t)i, NULL));
    for (int i = 0; i < NT; i++) CHECK_OK(ito_join(t[i], NULL));
    CHECK_EQ(ito_regwin_errors(), 0);
    CHECK_OK(ito_regwin_detach());
    CHECK_OK(ito_stream_destroy(tok));
    ito_regwin_counters_t c;
    CHECK_OK(ito_regwin_read_counters(&c));
    CHECK(c.saves > 1000);
    CHECK_EQ(c.saves, c.restores);
    CHECK(c.switches > 100);
    CHECK_EQ(c.thread_exits, NT);
    if (windows <= 6) CHECK(c.overflow_traps > 0 && c.underflow_traps > 0);
    if (scheme == ITO_REGWIN_NS) CHECK_EQ(c.switches_resident, 0);
    else if (windows == 32) CHECK(c.switches_resident > 0);
}

/* ---- 2. the working-set policy ---- */
static ito_stream_t *wake_s;
static char order[8];
static int norder;

NI static void log_run(char who) { order[norder++] = who; }

static void *sleeper(void *arg)
{
    (void)arg;
    char c;
    size_t got;
    log_run('A');
    CHECK_OK(ito_stream_get(wake_s, &c, 1, &got)); /* blocks with windows left in place */
    log_run('a');
    return NULL;
}

static void *waker(void *arg)
{
    (void)arg;
    log_run('C');
    char c = 1;
    CHECK_OK(ito_stream_put(wake_s, &c, 1)); /* A becomes ready: D is already queued */
    ito_yield();
    log_run('c');
    return NULL;
}

static void *bystander(void *arg)
{
    (void)arg;
    log_run('D');
    return NULL;
}

/* Returns whether A ran again before D. */
NI static int woken_first(int scheme, int ws)
{
    ito_regwin_config_t cfg;
    CHECK_OK(ito_regwin_config_init(&cfg));
    cfg.scheme = scheme;
    cfg.windows = 16;
    cfg.working_set = ws;
    CHECK_OK(ito_regwin_configure(&cfg));
    CHECK_OK(ito_stream_create(&wake_s, 1));
    norder = 0;
    memset(order, 0, sizeof order);
    CHECK_OK(ito_regwin_attach());
    /* FIFO: A runs and blocks (windows left in place), C is placed above A's windows
     * (the suspended thread's, sec. 4.2) and wakes A while D is queued */
    ito_thread_t a, c, d;
    CHECK_OK(ito_create(&a, sleeper, NULL, NULL));
    CHECK_OK(ito_create(&c, waker, NULL, NULL));
    CHECK_OK(ito_create(&d, bystander, NULL, NULL));
    CHECK_OK(ito_join(a, NULL));
    CHECK_OK(ito_join(c, NULL));
    CHECK_OK(ito_join(d, NULL));
    CHECK_OK(ito_regwin_detach());
    CHECK_OK(ito_stream_destroy(wake_s));
    CHECK_EQ(norder, 5);
    CHECK_EQ(order[0], 'A');
    CHECK_EQ(order[1], 'C');
    char *pa = strchr(order, 'a'), *pd = strchr(order, 'D');
    CHECK(pa && pd);
    return pa < pd;
}

int main(void)
{
    ito_config_t rc = {.workers = 1};
    CHECK_OK(ito_init(&rc));

    /* 3. not attached: no counting, no error */
    CHECK_OK(ito_regwin_reset_counters());
    CHECK_EQ(ito_regwin_attached(), 0);
    CHECK_OK(ito_stream_create(&tok, 1));
    (void)worker_fn(0);
    CHECK_OK(ito_stream_destroy(tok));
    ito_regwin_counters_t c;
    CHECK_OK(ito_regwin_read_counters(&c));
    CHECK_EQ(c.saves, 0);
    CHECK_EQ(ito_regwin_detach(), ITO_ESTATE);

    /* an OFF scheme cannot be attached */
    ito_regwin_config_t off;
    CHECK_OK(ito_regwin_config_init(&off));
    CHECK_OK(ito_regwin_configure(&off));
    CHECK_EQ(ito_regwin_attach(), ITO_ESTATE);

    static const int wins[] = {4, 5, 7, 8, 12, 32};
    for (int s = ITO_REGWIN_NS; s <= ITO_REGWIN_SP; s++)
        for (size_t k = 0; k < sizeof wins / sizeof wins[0]; k++)
            for (int ws = 0; ws <= 1; ws++) run_one(s, wins[k], ws);

    CHECK(woken_first(ITO_REGWIN_SP, 1));
    CHECK(woken_first(ITO_REGWIN_SNP, 1));
    CHECK(!woken_first(ITO_REGWIN_SP, 0));
    CHECK(!woken_first(ITO_REGWIN_NS, 1));

    CHECK_OK(ito_finalize());
    TEST_DONE();
}
