/* fuzz_api: libFuzzer harness for ito's public API (clang-19, -fsanitize=fuzzer,address,
 * undefined; built in the ASan tree). Each input is decoded into a sequence of calls made
 * by the main ULT of a fresh runtime of 1 or 2 workers: create / join / detach / yield /
 * yield_to / thread id and name, mutex and condition variable operations, streams and
 * channels (create, destroy, try operations, close, stats), frames (create, set,
 * continue, rearm, destroy, data), bulk creation, groups (create, add, destroy, stats),
 * the budget of compiled yields (ito_coop_set_budget, hand-written countdown checks),
 * preemption (enable with any configuration, gang scheduling included, disable, stats,
 * preemption-safe regions in the main ULT and in the threads, balanced or not),
 * finalize and init again in the middle — with live, stale (joined, destroyed, earlier
 * runtime's), forged and wrongly typed handles and out-of-range numbers; and storage
 * that is or is not a synchronization object (never initialised: random or zero bytes;
 * initialised as one type, used as another; destroyed) given to the calls of every type
 * that cannot wait (a wrong one must be ITO_EINVAL at once, never a hang).
 * Every call must return ITO_OK or one of ito's codes; a crash, a sanitizer report, a
 * hang (libFuzzer's -timeout) or another value is a finding. What the harness never does:
 * wait on something nobody will signal, or pass a pointer to memory it freed itself
 * (mutexes and condition variables are the caller's objects: only live ones are used). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "../ito_test.h" /* ito_test_any_sync_t */

#define NT 8 /* thread handle slots */
#define NF 4 /* frame slots */
#define NG 4 /* group slots */
#define NS 4 /* stream slots */
#define NC 4 /* channel slots */

static void *body(void *arg)
{
    uintptr_t k = (uintptr_t)arg & 3;
    int region = ((uintptr_t)arg & 4) != 0; /* yields inside a preemption-safe region */
    if (region && ito_psafe_begin() != ITO_OK) abort();
    for (uintptr_t i = 0; i < k; i++) ito_yield();
    if (region && ito_psafe_end() != ITO_OK) abort();
    return arg;
}

static void zfn(ito_frame_t *f, int entry, uint64_t v)
{
    (void)f;
    (void)entry;
    (void)v;
}

static uintptr_t forged(const void *near);

/* A handle that is live, stale or forged, picked by the input. */
static ito_thread_t pick_thread(ito_thread_t *t)
{
    unsigned b = byte();
    if (b < 200) return t[b % NT];
    if (b < 230) return (ito_thread_t)(uintptr_t)((uintptr_t)t[b % NT] ^ ((uintptr_t)(b & 7) << 48)); /* other generation */
    if (b < 250) return (ito_thread_t)forged(t[b % NT]);
    return NULL;
}

/* A pointer the runtime never handed out: near a live handle, on the stack, in the heap,
 * or anywhere (the handle arena refuses them before reading, src/core/arena.c). */
static uintptr_t forged(const void *near)
{
    static unsigned char heap_like[256];
    unsigned char local[64];
    unsigned k = byte();
    uintptr_t v;
    switch (k % 5) {
    case 0: v = (uintptr_t)near + (uintptr_t)(int8_t)byte() * 8; break;
    case 1: v = (uintptr_t)local; break;
    case 2: v = (uintptr_t)heap_like; break;
    case 3: v = ((uintptr_t)byte() << 40) | ((uintptr_t)byte() << 24) | ((uintptr_t)byte() << 8); break;
    default: v = (uintptr_t)near ^ ((uintptr_t)byte() << 16); break;
    }
    return v;
}

static ito_frame_t *pick_frame(ito_frame_t **f)
{
    unsigned b = byte();
    if (b < 220) return f[b % NF];
    return (ito_frame_t *)forged(f[b % NF]);
}

/* A stream or channel handle: live, destroyed, of the other type, or forged. */
static ito_stream_t *pick_stream(ito_stream_t **s, ito_chan_t **c)
{
    unsigned b = byte();
    if (b < 210) return s[b % NS];
    if (b < 230) return (ito_stream_t *)c[b % NC];
    return (ito_stream_t *)forged(s[b % NS]);
}

static ito_chan_t *pick_chan(ito_chan_t **c, ito_stream_t **s)
{
    unsigned b = byte();
    if (b < 210) return c[b % NC];
    if (b < 230) return (ito_chan_t *)s[b % NS];
    return (ito_chan_t *)forged(c[b % NC]);
}

static unsigned char item[ITO_CHAN_MAX_ITEM]; /* room for an item of any channel */

/* Storage for any synchronization object, in whatever state the input leaves it. */
static ito_test_any_sync_t junk;

/* Make junk something: bytes from the input, zero, or an object of a type (destroyed or
 * not). A live mutex or rwlock in it may be held by main: nobody else uses it. Input bytes
 * never include 'i', the first byte of every type mark (src/sync/waitq.h): the runtime
 * trusts a mark ("random bytes pass for an object once in 2^32", sync.h), and libFuzzer's
 * comparison tracing would soon forge one. */
static void junk_set(unsigned a)
{
    switch (a % 4) {
    case 0:
        for (size_t i = 0; i < sizeof junk.bytes; i++) {
            unsigned char c = (unsigned char)byte();
            junk.bytes[i] = c == 'i' ? 'j' : c;
        }
        break;
    case 1: memset(&junk, 0, sizeof junk); break;
    default: {
        int rc;
        switch ((a / 4) % 7) {
        case 0: rc = ito_mutex_init(&junk.m); if (a & 0x80 && rc == ITO_OK) (void)ito_mutex_destroy(&junk.m); break;
        case 1: rc = ito_cond_init(&junk.c); if (a & 0x80 && rc == ITO_OK) (void)ito_cond_destroy(&junk.c); break;
        case 2: rc = ito_rwlock_init(&junk.l); if (a & 0x80 && rc == ITO_OK) (void)ito_rwlock_destroy(&junk.l); break;
        case 3: rc = ito_sem_init(&junk.s, a & 3); if (a & 0x80 && rc == ITO_OK) (void)ito_sem_destroy(&junk.s); break;
        case 4: rc = ito_barrier_init(&junk.b, 1); if (a & 0x80 && rc == ITO_OK) (void)ito_barrier_destroy(&junk.b); break;
        case 5: rc = ito_waitgroup_init(&junk.g); if (a & 0x80 && rc == ITO_OK) (void)ito_waitgroup_destroy(&junk.g); break;
        default: rc = ito_future_init(&junk.f); if (a & 0x80 && rc == ITO_OK) (void)ito_future_destroy(&junk.f); break;
        }
        check(rc);
    }
    }
}

/* A call that cannot wait on junk, whatever it holds (a barrier is only ever made for 1). */
static void junk_use(unsigned a)
{
    uint64_t v;
    unsigned u;
    int64_t n;
    switch (a % 22) {
    case 0: check(ito_mutex_trylock(&junk.m)); break;
    case 1: check(ito_mutex_lock_until(&junk.m, 0)); break;
    case 2: check(ito_mutex_unlock(&junk.m)); break;
    case 3: check(ito_mutex_destroy(&junk.m)); break;
    case 4: check(ito_cond_signal(&junk.c)); break;
    case 5: check(ito_cond_broadcast(&junk.c)); break;
    case 6: check(ito_cond_destroy(&junk.c)); break;
    case 7: check(ito_rwlock_tryrdlock(&junk.l)); break;
    case 8: check(ito_rwlock_trywrlock(&junk.l)); break;
    case 9: check(ito_rwlock_unlock(&junk.l)); break;
    case 10: check(ito_rwlock_destroy(&junk.l)); break;
    case 11: check(ito_sem_trywait(&junk.s)); break;
    case 12: check(ito_sem_post(&junk.s)); break;
    case 13: check(ito_sem_wait_until(&junk.s, 0)); break;
    case 14: check(ito_sem_value(&junk.s, &u)); break;
    case 15: { /* the one arrival of a barrier for 1: ITO_BARRIER_SERIAL (positive) */
        int rc = ito_barrier_wait(&junk.b);
        check(rc == ITO_BARRIER_SERIAL ? ITO_OK : rc);
        break;
    }
    case 16: check(ito_waitgroup_add(&junk.g, (int64_t)(a % 3) - 1)); break;
    case 17: check(ito_waitgroup_wait_until(&junk.g, 0)); break;
    case 18: check(ito_waitgroup_count(&junk.g, &n)); break;
    case 19: check(ito_future_set(&junk.f, a)); break;
    case 20: check(ito_future_wait_until(&junk.f, &v, 0)); break;
    default: check(ito_future_try_get(&junk.f, &v)); break;
    }
}

static void run(ito_thread_t *t, ito_frame_t **f, ito_group_t **g, ito_mutex_t *m, ito_cond_t *c,
                ito_stream_t **s, ito_chan_t **ch, int *held, int *regions)
{
    for (int steps = 0; steps < 64 && in_at < in_n; steps++) {
        unsigned op = byte() % 38, a = byte();
        char buf[64];
        size_t got;
        uint64_t id;
        switch (op) {
        case 0: check(ito_create(&t[a % NT], body, (void *)(uintptr_t)a, NULL)); break;
        case 1: check(ito_join(pick_thread(t), NULL)); break;
        case 2: check(ito_detach(pick_thread(t))); break;
        case 3: check(ito_yield()); break;
        case 4: check(ito_yield_to(pick_thread(t))); break;
        case 5: check(ito_thread_id(pick_thread(t), &id)); break;
        case 6: check(ito_thread_name(pick_thread(t), buf, a % sizeof buf)); break;
        case 7:
            if (!*held) { check(ito_mutex_lock(m)); *held = 1; }
            else check(ito_mutex_trylock(m));
            break;
        case 8: if (ito_mutex_unlock(m) == ITO_OK) *held = 0; break;
        case 9: check(a & 1 ? ito_cond_signal(c) : ito_cond_broadcast(c)); break;
        case 10: memset(buf, a, sizeof buf); check(ito_stream_try_put(pick_stream(s, ch), buf, a % sizeof buf, &got)); break;
        case 11: check(ito_stream_try_get(pick_stream(s, ch), buf, a % sizeof buf, &got)); break;
        case 12: check(ito_frame_create(&f[a % NF], (int)(a % 6) - 1, a % 3 ? 16 : 0)); break;
        case 13: check(ito_entry_set(pick_frame(f), (int)(byte() % 6) - 1, a & 1 ? zfn : NULL, byte() % 3, ITO_MODE_USER)); break;
        case 14: check(ito_continue(pick_frame(f), (int)(byte() % 6) - 1)); break;
        case 15: check(ito_rearm(pick_frame(f), (int)(byte() % 6) - 1, byte() % 3)); break;
        case 16: check(ito_frame_destroy(f[a % NF])); break; /* the slot keeps the pointer: stale later */
        case 17: (void)ito_frame_data(pick_frame(f)); break;
        case 18: {
            ito_spawn_attr_t sa;
            check(ito_spawn_attr_init(&sa));
            sa.scheme = (ito_spawn_scheme_t)(byte() % 6);
            sa.flags = ITO_ATTR_DETACHED;
            check(ito_create_many(a % 300, body, NULL, 0, NULL, NULL, NULL, &sa));
            break;
        }
        case 19: check(ito_group_create(&g[a % NG])); break;
        case 20: check(ito_group_add(g[a % NG], pick_thread(t))); break;
        case 21: check(ito_group_destroy(g[a % NG])); break;
        case 22: { ito_preempt_stats_t ps; check(ito_group_stats(g[a % NG], &ps)); break; }
        case 23: /* finalize (fails with ITO_EBUSY never here: nothing waits) and start again */
            if (*held) { check(ito_mutex_unlock(m)); *held = 0; }
            return;
        case 24: /* a new stream in a slot (the one there first destroyed, if live) */
            (void)ito_stream_destroy(s[a % NS]);
            check(ito_stream_create(&s[a % NS], a & 1 ? 1 + byte() % 128 : (size_t)byte() << 24));
            break;
        case 25: check(ito_stream_destroy(s[a % NS])); break; /* the slot keeps the pointer: stale later */
        case 26: { uint64_t x, y; check(a & 1 ? ito_stream_close(pick_stream(s, ch)) : ito_stream_stats(pick_stream(s, ch), &x, &y)); break; }
        case 27:
            (void)ito_chan_destroy(ch[a % NC]);
            check(ito_chan_create(&ch[a % NC], a & 1 ? 1 + byte() % 64 : (size_t)byte() << 8, byte() % 8));
            break;
        case 28: check(ito_chan_destroy(ch[a % NC])); break;
        case 29: memset(item, a, sizeof item); check(ito_chan_try_send(pick_chan(ch, s), a & 1 ? item : NULL)); break;
        case 30: check(ito_chan_try_recv(pick_chan(ch, s), a & 1 ? item : NULL)); break;
        case 31: { ito_chan_stats_t cs; check(a & 1 ? ito_chan_close(pick_chan(ch, s)) : ito_chan_stats(pick_chan(ch, s), &cs)); break; }
        case 32: junk_set(a); break;
        case 33: junk_use(a); break;
        case 35: { /* preemption with any configuration: valid or not, gang or not */
            ito_preempt_config_t pc = {.quantum_us = a & 1 ? 100u + byte() * 40u : (unsigned)byte() * 1000u,
                                       .mode = (int)(byte() % 3),
                                       .max_delay_quanta = a & 2 ? byte() % 8 : (unsigned)byte() * 8u,
                                       .gang = (a >> 2) & 1};
            check(a & 0x80 ? ito_preempt_enable(NULL) : ito_preempt_enable(&pc));
            break;
        }
        case 36: {
            ito_preempt_stats_t ps;
            check(a & 1 ? ito_preempt_disable() : ito_preempt_stats(a & 2 ? &ps : NULL));
            break;
        }
        case 37: /* regions in the main ULT, an end without a begin among them */
            if (a & 1) {
                if (ito_psafe_begin() == ITO_OK) ++*regions;
            } else if (ito_psafe_end() == ITO_OK) {
                --*regions;
            } else if (*regions) abort(); /* a begun region must end */
            break;
        case 34: { /* the budget (coop.h): any quantum and slice, valid or not, then the
                    * checks code built with --ito-check=budget makes, by hand */
            long q = (long)(int8_t)byte() * (a & 1 ? 1 : 100000000L);
            unsigned long long sl = a & 2 ? (unsigned long long)byte() << (byte() % 48) : 0;
            check(ito_coop_set_budget(q, sl));
            for (unsigned k = 0; k < a % 16; k++)
                if ((ito_coop_budget -= (int)(byte() % 64)) < 0) ito_coop_yield_abi();
            break;
        }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_begin(data, size);
    ito_thread_t t[NT] = {0};
    ito_frame_t *f[NF] = {0};
    ito_group_t *g[NG] = {0};
    ito_stream_t *s[NS] = {0};
    ito_chan_t *ch[NC] = {0};
    for (int round = 0; round < 3 && in_at < in_n; round++) {
        ito_config_t cfg = {.workers = 1 + (int)(byte() & 1)};
        if (ito_init(&cfg) != ITO_OK) abort();
        ito_mutex_t m;
        ito_cond_t c;
        check(ito_mutex_init(&m));
        check(ito_cond_init(&c));
        int held = 0, regions = 0;
        run(t, f, g, &m, &c, s, ch, &held, &regions);
        if (held) check(ito_mutex_unlock(&m));
        for (; regions > 0; regions--) check(ito_psafe_end());
        for (int i = 0; i < NT; i++) (void)ito_join(t[i], NULL); /* joinable ones end here */
        check(ito_cond_destroy(&c));
        check(ito_mutex_destroy(&m));
        int rc = ito_finalize();
        if (rc != ITO_OK) abort(); /* nothing was left waiting: finalize must succeed */
        check(ito_coop_set_budget(ITO_COOP_BUDGET_DEFAULT, 0)); /* process-wide: reset */
        /* t, f and g keep their values: the next round uses them as stale handles; streams
         * and channels outlive a runtime (any thread may use them) */
    }
    for (int i = 0; i < NS; i++) (void)ito_stream_destroy(s[i]); /* live ones: no leak */
    for (int i = 0; i < NC; i++) (void)ito_chan_destroy(ch[i]);
    return 0;
}
