/* regwin_hooks.c: real instrumented code. This file is compiled with
 * -finstrument-functions; its __cyg_profile_func_enter/exit call itoi_regwin_enter/leave,
 * which check at every function exit that the frame's window came back intact. The work
 * runs on several coroutines (ucontext) that switch at random points, as ULTs will, each
 * switch going through itoi_regwin_switch, for every scheme and a few window counts.
 * (Under TSan, which cannot follow swapcontext, the work runs on one coroutine-less thread.) */
#include <stdint.h>
#include <stdlib.h>

#include "ito_test.h"
#include "regwin.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NO_COROUTINES 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define NO_COROUTINES 1
#endif
#ifndef NO_COROUTINES
#include <ucontext.h>
#endif

#define NI __attribute__((no_instrument_function))
#define NCO 5
#define STACK (256 * 1024)

static itoi_regwin_file_t *F;
static int hooks_on;
static long hook_errors, hook_calls;

NI void __cyg_profile_func_enter(void *fn, void *site);
NI void __cyg_profile_func_exit(void *fn, void *site);

NI void __cyg_profile_func_enter(void *fn, void *site)
{
    if (!hooks_on) return;
    hook_calls++;
    if (itoi_regwin_enter(F, (uintptr_t)fn, (uintptr_t)site) != ITO_OK) hook_errors++;
}

NI void __cyg_profile_func_exit(void *fn, void *site)
{
    if (!hooks_on) return;
    if (itoi_regwin_leave(F, (uintptr_t)fn, (uintptr_t)site) != ITO_OK) hook_errors++;
}

static uint64_t rng = 88172645463325252ull;
NI static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static itoi_regwin_thread_t th[NCO];
#ifndef NO_COROUTINES
static int live[NCO], cur_co, nlive;
static ucontext_t ctx[NCO], main_ctx;
#endif

/* The scheduler: no instrumentation (it runs "between" threads, like the ULT switch). */
#ifndef NO_COROUTINES
NI static int pick_other(void)
{
    if (nlive <= 1) return live[cur_co] ? cur_co : -1;
    int n;
    do n = (int)(next_rand() % NCO);
    while (!live[n] || n == cur_co);
    return n;
}
#endif

NI static void yield_now(void)
{
#ifndef NO_COROUTINES
    int n = pick_other();
    if (n < 0 || n == cur_co) return;
    int kind = next_rand() % 6 == 0 ? ITOI_REGWIN_FLUSH : ITOI_REGWIN_LEAVE;
    int from = cur_co;
    CHECK_OK(itoi_regwin_switch(F, &th[from], &th[n], kind));
    cur_co = n;
    swapcontext(&ctx[from], &ctx[n]);
#endif
}

#ifndef NO_COROUTINES
NI static void co_exit(void)
{
    int me = cur_co;
    live[me] = 0;
    nlive--;
    int n = -1;
    for (int i = 0; i < NCO; i++)
        if (live[i]) n = i;
    CHECK_OK(itoi_regwin_switch(F, &th[me], n >= 0 ? &th[n] : NULL, ITOI_REGWIN_EXIT));
    if (n >= 0) {
        cur_co = n;
        setcontext(&ctx[n]);
    }
    setcontext(&main_ctx);
}
#endif

/* ---- instrumented code ---- */

static uint64_t mix(uint64_t a, uint64_t b)
{
    a ^= b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2);
    return a;
}

static uint64_t work(int depth, uint64_t seed)
{
    uint64_t acc = seed;
    if (depth <= 0) return acc;
    for (int j = 0; j < 2; j++) {
        acc = mix(acc, work(depth - 1 - (int)((seed >> j) & 1), mix(seed, (uint64_t)j)));
        if (next_rand() % 5 == 0) yield_now();
    }
    return acc;
}

static uint64_t results[NCO];
static void co_main(int i) { results[i] = work(10, (uint64_t)i + 1); }

/* ---- plain code ---- */

#ifndef NO_COROUTINES
NI static void trampoline(int i)
{
    co_main(i);
    co_exit();
}
#endif

NI static uint64_t expected(int i)
{
    /* the same computation without hooks and without switches */
    int save = hooks_on;
    hooks_on = 0;
    uint64_t r = work(10, (uint64_t)i + 1);
    hooks_on = save;
    return r;
}

NI static void run(int scheme, int windows)
{
    ito_regwin_config_t cfg;
    CHECK_OK(ito_regwin_config_init(&cfg));
    cfg.scheme = scheme;
    cfg.windows = windows;
    F = itoi_regwin_file_new(0, &cfg, NULL);
    CHECK(F != NULL);
    hook_errors = hook_calls = 0;
    for (int i = 0; i < NCO; i++) CHECK_OK(itoi_regwin_thread_init(&th[i], NULL));
#ifndef NO_COROUTINES
    char *stacks = malloc((size_t)NCO * STACK);
    CHECK(stacks != NULL);
    for (int i = 0; i < NCO; i++) {
        CHECK(getcontext(&ctx[i]) == 0);
        ctx[i].uc_stack.ss_sp = stacks + (size_t)i * STACK;
        ctx[i].uc_stack.ss_size = STACK;
        ctx[i].uc_link = NULL;
        makecontext(&ctx[i], (void (*)(void))trampoline, 1, i);
        live[i] = 1;
    }
    nlive = NCO;
    cur_co = 0;
    CHECK_OK(itoi_regwin_switch(F, NULL, &th[0], ITOI_REGWIN_LEAVE));
    hooks_on = 1;
    swapcontext(&main_ctx, &ctx[0]);
    hooks_on = 0;
    free(stacks);
#else
    for (int i = 0; i < NCO; i++) {
        CHECK_OK(itoi_regwin_switch(F, i ? &th[i - 1] : NULL, &th[i], ITOI_REGWIN_LEAVE));
        hooks_on = 1;
        co_main(i);
        hooks_on = 0;
    }
    CHECK_OK(itoi_regwin_switch(F, &th[NCO - 1], NULL, ITOI_REGWIN_EXIT));
#endif
    CHECK_EQ(hook_errors, 0);
    CHECK(hook_calls > 1000);
    for (int i = 0; i < NCO; i++) CHECK_EQ(results[i], expected(i));
    ito_regwin_counters_t c;
    itoi_regwin_file_counters(F, &c);
    CHECK_EQ(c.saves, (uint64_t)hook_calls); /* every entry was a save ... */
    CHECK_EQ(c.restores, c.saves);            /* ... and every exit a restore */
    if (windows <= 8) { /* the recursion (depth 12) is deeper than the file */
        CHECK(c.overflow_traps > 0);
        CHECK(c.underflow_traps > 0);
    }
#ifndef NO_COROUTINES
    CHECK(c.switches > 10);
    CHECK_EQ(c.thread_exits, NCO);
#endif
    for (int i = 0; i < NCO; i++) CHECK_OK(itoi_regwin_thread_fini(&th[i]));
    CHECK_OK(itoi_regwin_file_free(F));
}

/* A corrupted local is caught at the function's exit. */
NI static void corruption(void)
{
    itoi_regwin_file_t *f = itoi_regwin_file_new(0, &(ito_regwin_config_t){.scheme = ITO_REGWIN_SP, .windows = 4}, NULL);
    CHECK(f != NULL);
    itoi_regwin_thread_t t;
    CHECK_OK(itoi_regwin_thread_init(&t, NULL));
    CHECK_EQ(itoi_regwin_enter(f, 1, 2), ITO_ESTATE); /* no current thread */
    CHECK_OK(itoi_regwin_switch(f, NULL, &t, ITOI_REGWIN_LEAVE));
    CHECK_OK(itoi_regwin_enter(f, 0x1000, 0x2000));
    CHECK_OK(itoi_regwin_enter(f, 0x1100, 0x2100));
    CHECK_OK(itoi_regwin_leave(f, 0x1100, 0x2100));
    CHECK_EQ(itoi_regwin_leave(f, 0x1100, 0x2100), ITO_ESTATE); /* wrong function */
    itoi_regwin_set(f, ITOI_REGWIN_L0 + 2, 5);
    CHECK_EQ(itoi_regwin_leave(f, 0x1000, 0x2000), ITO_ESTATE); /* cookie overwritten */
    CHECK_OK(itoi_regwin_switch(f, &t, NULL, ITOI_REGWIN_EXIT));
    CHECK_OK(itoi_regwin_thread_fini(&t));
    CHECK_OK(itoi_regwin_file_free(f));
}

NI int main(void)
{
    const int schemes[] = {ITO_REGWIN_NS, ITO_REGWIN_SNP, ITO_REGWIN_SP};
    const int windows[] = {4, 5, 8, 16, 32};
    for (int s = 0; s < 3; s++)
        for (int w = 0; w < 5; w++) run(schemes[s], windows[w]);
    corruption();
    TEST_DONE();
}
