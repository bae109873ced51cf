/* test_zwt_misuse_fuzz: a seeded random misuse fuzzer of the ZWT layer's handles (frames,
 * entries, devices: eventfd, timer, pipe). Outside tester h65a, 2026-12-06.
 *
 * Each owner ULT creates, defines, continues, re-arms, locks, waits on and destroys its own
 * frames, and opens, signals, arms, acks and closes its own devices, at random, asserting
 * the documented return codes; every destroyed frame and closed device goes to a graveyard,
 * whose handles every thread (owners, handler ZWTs, a foreign pthread) then uses with
 * every call and must be refused (ITO_EINVAL exactly, NULL for ito_frame_data), also once
 * the memory or slot holds a new object, also after ito_finalize and a new ito_init. The
 * foreign thread also continues owners' live frames (pinned: never racing their destroy)
 * and passes forged handles (offsets into live frames, flipped generation bits). Devices
 * deliver while their frames are destroyed and their slots reused. Each round ends with
 * ito_finalize while devices are open and timers armed. Seed and run time from the
 * environment (ITO_FUZZ_SEED, ITO_FUZZ_MS; default 4000 ms in total). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define NOWN 3
#define NF 4 /* frames per owner */
#define ND 4 /* devices per owner */
#define NE 4 /* entries per frame */
#define GRAVE 256

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void fail(const char *what, int rc, int line)
{
    fprintf(stderr, "fuzz line %d: %s returned %d\n", line, what, rc);
    fflush(stderr);
    abort();
}
/* rc must be one of the listed codes */
#define EXPECT(call, ...)                                                                     \
    do {                                                                                      \
        int rc_ = (call), ok_[] = {__VA_ARGS__}, hit_ = 0;                                    \
        for (size_t i_ = 0; i_ < sizeof ok_ / sizeof ok_[0]; i_++) hit_ |= rc_ == ok_[i_];     \
        if (!hit_) fail(#call, rc_, __LINE__);                                                \
    } while (0)

/* graveyards: handles of destroyed frames / closed devices, published after the destroy */
static ito_frame_t *_Atomic gframe[GRAVE];
static ito_device_t *_Atomic gdev[GRAVE];
static _Atomic unsigned ngframe, ngdev;
static void bury_frame(ito_frame_t *f) { atomic_store(&gframe[atomic_fetch_add(&ngframe, 1) % GRAVE], f); }
static void bury_dev(ito_device_t *d) { atomic_store(&gdev[atomic_fetch_add(&ngdev, 1) % GRAVE], d); }

/* the foreign pthread: its continuations may also meet a closing runtime (ITO_ESTATE, zwt.h) */
static __thread bool am_foreign;
#define CONT_STALE (am_foreign ? ITO_ESTATE : ITO_EINVAL)

/* stale frame handle: everything refused */
static void use_stale_frame(ito_frame_t *f, uint64_t *s, bool ult)
{
    int e = (int)(rnd(s) % NE);
    switch (rnd(s) % 10) {
    case 0: EXPECT(ito_continue(f, e), ITO_EINVAL, CONT_STALE); break;
    case 1: EXPECT(ito_continue_value(f, e, 7), ITO_EINVAL, CONT_STALE); break;
    case 2: EXPECT(ito_rearm(f, e, 0), ITO_EINVAL); break;
    case 3: EXPECT(ito_entry_set(f, e, NULL, 1, ITO_MODE_USER), ITO_EINVAL); break;
    case 4: EXPECT(ito_trylock(f, e), ITO_EINVAL); break;
    case 5: EXPECT(ito_unlock(f, e), ITO_EINVAL); break;
    case 6: CHECK(ito_frame_data(f) == NULL); break;
    case 7: EXPECT(ito_frame_destroy(f), ITO_EINVAL); break;
    case 8:
        if (ult) EXPECT(ito_frame_wait_until(f, e, ito_deadline_in(100000)), ITO_EINVAL);
        else EXPECT(ito_frame_wait_until(f, e, ito_deadline_in(100000)), ITO_EINVAL, ITO_ENOTULT);
        break;
    default: {
        ito_device_t *d;
        EXPECT(ito_device_eventfd(f, e, &d), ITO_EINVAL, ITO_ESTATE);
        break;
    }
    }
}

static void use_stale_dev(ito_device_t *d, uint64_t *s)
{
    uint64_t x;
    switch (rnd(s) % 7) {
    case 0: EXPECT(ito_device_close(d), ITO_EINVAL); break;
    case 1: EXPECT(ito_device_ack(d), ITO_EINVAL); break;
    case 2: EXPECT(ito_device_signal(d, 1 + rnd(s) % 9), ITO_EINVAL); break;
    case 3: EXPECT(ito_device_timer_set(d, 1000 + rnd(s) % 100000, rnd(s) % 2 ? 0 : 50000), ITO_EINVAL); break;
    case 4: EXPECT(ito_device_fd(d), ITO_EINVAL); break;
    case 5: EXPECT(ito_device_stats(d, &x, &x), ITO_EINVAL); break;
    default: EXPECT(ito_device_stats(d, NULL, NULL), ITO_EINVAL); break;
    }
}

static void graveyard_round(uint64_t *s, bool ult, int n)
{
    for (int i = 0; i < n; i++) {
        unsigned nf = atomic_load(&ngframe), nd = atomic_load(&ngdev);
        if (nf) {
            ito_frame_t *f = atomic_load(&gframe[rnd(s) % (nf < GRAVE ? nf : GRAVE)]);
            if (f) use_stale_frame(f, s, ult);
        }
        if (nd) {
            ito_device_t *d = atomic_load(&gdev[rnd(s) % (nd < GRAVE ? nd : GRAVE)]);
            if (d) use_stale_dev(d, s);
        }
    }
}

/* ---- devices by handler: the handlers ack through it, the foreign thread signals
 * through it; entries go stale as owners close their devices (racing: with generations
 * in device handles, a stale one is refused, ITO_EINVAL) ---- */
#define NREG (3 * 4)
typedef struct {
    ito_frame_t *_Atomic f;
    _Atomic int entry;
    ito_device_t *_Atomic d;
} reg_t;
static reg_t reg[NREG];

/* ---- ZWT handlers ---- */
static _Atomic long zruns, zbad;
static __thread uint64_t zseed;
static void retry_pinned(ito_frame_t *f);
static void handler(ito_frame_t *f, int entry, uint64_t v)
{
    (void)v;
    atomic_fetch_add(&zruns, 1);
    ito_frame_t *sf;
    int se;
    CHECK_OK(ito_zwt_self(&sf, &se));
    if (sf != f || se != entry) atomic_fetch_add(&zbad, 1);
    if (!zseed) zseed = 0x9e3779b97f4a7c15ull ^ (uintptr_t)&sf;
    EXPECT(ito_frame_wait(f, entry), ITO_ENOTULT, ITO_EINVAL);
    graveyard_round(&zseed, false, 1);
    for (int i = 0; i < NREG; i++)
        if (atomic_load(&reg[i].f) == f && atomic_load(&reg[i].entry) == entry) {
            ito_device_t *d = atomic_load(&reg[i].d);
            if (d) EXPECT(ito_device_ack(d), ITO_OK, ITO_ESTATE, ITO_EBUSY, ITO_EINVAL, ITO_EIO); /* EIO: a pipe closed under its device */
        }
    if (rnd(&zseed) % 16 == 0) retry_pinned(f);
}

/* ---- owners ---- */
/* ITO_FUZZ_FDGONE=1: owners also close a pipe under its device (against zwt.h's advice;
 * then ito's epoll_ctl by number races the program's next fd of that number, a
 * ThreadSanitizer fd report, so off by default) */
static bool fdgone_on;
static ito_device_t *left[NOWN * ND];
static _Atomic int nleft;
typedef struct {
    ito_frame_t *_Atomic h; /* live or NULL */
    _Atomic int pins, dying;
} shared_frame_t;
static shared_frame_t shf[NOWN][NF];
static _Atomic int stop, round_no;

typedef struct {
    ito_device_t *d;
    int kind; /* 0 eventfd, 1 timer, 2 pipe */
    int pfd[2];
    bool fdgone; /* pipe: the program closed its fds before the device (allowed) */
} odev_t;

static void frame_kill(int o, int i)
{
    shared_frame_t *sh = &shf[o][i];
    ito_frame_t *f = atomic_load(&sh->h);
    if (!f) return;
    atomic_store(&sh->dying, 1);
    while (atomic_load(&sh->pins)) ito_yield();
    int rc = ito_frame_destroy(f);
    if (rc == ITO_OK) {
        atomic_store(&sh->h, NULL);
        bury_frame(f);
    } else if (rc != ITO_EBUSY) fail("ito_frame_destroy(live)", rc, __LINE__);
    atomic_store(&sh->dying, 0);
}

/* A handler's retry re-arms and continues its own frame: racing the owner's destroy it
 * would be the caller's error (zwt.h, ito_frame_destroy; a ThreadSanitizer report in CI,
 * the retry's queue push against the next life's entry reset), so it pins the frame as the
 * foreign thread does, and skips the retry while the owner is destroying it. */
static void retry_pinned(ito_frame_t *f)
{
    for (int o = 0; o < NOWN; o++)
        for (int i = 0; i < NF; i++) {
            shared_frame_t *sh = &shf[o][i];
            if (atomic_load(&sh->h) != f || atomic_load(&sh->dying)) continue;
            atomic_fetch_add(&sh->pins, 1);
            if (!atomic_load(&sh->dying) && atomic_load(&sh->h) == f)
                EXPECT(ito_zwt_retry(), ITO_OK, ITO_ESTATE, ITO_EPERM, ITO_EINVAL);
            atomic_fetch_sub(&sh->pins, 1);
            return;
        }
}

static void *owner(void *arg)
{
    int o = (int)(intptr_t)arg;
    uint64_t s = 0x12345678ull * (uint64_t)(o + 1) + (uint64_t)atomic_load(&round_no) * 0x1000193ull;
    s ^= strtoull(getenv("ITO_FUZZ_SEED") ? getenv("ITO_FUZZ_SEED") : "1", NULL, 0) << 7;
    if (!s) s = 1;
    odev_t dv[ND];
    memset(dv, 0, sizeof dv);
    while (!atomic_load(&stop)) {
        int i = (int)(rnd(&s) % NF), e = (int)(rnd(&s) % NE), k = (int)(rnd(&s) % ND);
        ito_frame_t *f = atomic_load(&shf[o][i].h);
        odev_t *d = &dv[k];
        switch (rnd(&s) % 21) {
        case 0:
            if (!f) {
                ito_frame_t *nf;
                int rc = ito_frame_create(&nf, NE, (size_t)(rnd(&s) % 3) * 200);
                if (rc != ITO_OK) fail("ito_frame_create", rc, __LINE__);
                atomic_store(&shf[o][i].h, nf);
            }
            break;
        case 1: frame_kill(o, i); break;
        case 2: case 3:
            if (f) {
                int mode = rnd(&s) % 8 == 0 ? ITO_MODE_KERNEL : rnd(&s) % 2 ? ITO_MODE_KERNEL_IF : ITO_MODE_USER;
                EXPECT(ito_entry_set(f, e, rnd(&s) % 2 ? handler : NULL, 1 + (uint32_t)(rnd(&s) % 3), mode), ITO_OK,
                       ITO_EBUSY);
            }
            break;
        case 4: case 5:
            if (f) EXPECT(ito_continue_value(f, e, rnd(&s)), ITO_OK, ITO_ESTATE, ITO_EPERM);
            break;
        case 6:
            if (f) EXPECT(ito_rearm(f, e, (uint32_t)(rnd(&s) % 3)), ITO_OK, ITO_ESTATE, ITO_EBUSY);
            break;
        case 7:
            if (f) {
                EXPECT(ito_trylock(f, e), ITO_OK, ITO_EBUSY);
                EXPECT(ito_unlock(f, e), ITO_OK, ITO_ESTATE);
            }
            break;
        case 8:
            if (f) EXPECT(ito_frame_wait_until(f, e, ito_deadline_in(rnd(&s) % 300000)), ITO_OK, ITO_ETIMEDOUT,
                          ITO_EINVAL, ITO_ESTATE, ITO_EBUSY);
            break;
        case 19: { /* a timed wait on another owner's frame, racing its destroy (allowed: zwt.h) */
            ito_frame_t *of = atomic_load(&shf[(o + 1 + (int)(rnd(&s) % (NOWN - 1))) % NOWN][i].h);
            if (of) EXPECT(ito_frame_wait_until(of, e, ito_deadline_in(rnd(&s) % 200000)), ITO_OK, ITO_ETIMEDOUT,
                           ITO_EINVAL, ITO_ESTATE, ITO_EBUSY);
            break;
        }
        case 9: /* bad arguments on a live frame */
            if (f) {
                EXPECT(ito_continue(f, NE + (int)(rnd(&s) % 5)), ITO_ERANGE);
                EXPECT(ito_continue(f, -1 - (int)(rnd(&s) % 5)), ITO_ERANGE);
                EXPECT(ito_entry_set(f, e, NULL, 0, ITO_MODE_USER), ITO_EINVAL);
                EXPECT(ito_entry_set(f, e, NULL, (1u << 30) + 1, ITO_MODE_USER), ITO_EINVAL);
                EXPECT(ito_entry_set(f, e, NULL, 1, 3), ITO_EINVAL);
                EXPECT(ito_rearm(f, e, (1u << 30) + 1), ITO_EINVAL, ITO_ESTATE);
                EXPECT(ito_frame_wait(f, NE), ITO_ERANGE);
                ito_device_t *x;
                EXPECT(ito_device_eventfd(f, NE, &x), ITO_ERANGE);
                EXPECT(ito_device_eventfd(f, 0, NULL), ITO_EINVAL);
                EXPECT(ito_device_open_fd(-1, f, 0, &x), ITO_EINVAL);
                EXPECT(ito_device_timer(0, f, -1, &x), ITO_ERANGE);
            }
            break;
        case 10: case 11: /* open a device */
            if (!d->d && f) {
                int kind = (int)(rnd(&s) % 3), rc;
                if (kind == 0) rc = ito_device_eventfd(f, e, &d->d);
                else if (kind == 1) rc = ito_device_timer(rnd(&s) % 2 ? 0 : 20000 + rnd(&s) % 200000, f, e, &d->d);
                else {
                    CHECK(pipe2(d->pfd, O_NONBLOCK | O_CLOEXEC) == 0);
                    rc = ito_device_open_fd(d->pfd[0], f, e, &d->d);
                    if (rc != ITO_OK) {
                        close(d->pfd[0]);
                        close(d->pfd[1]);
                    }
                }
                if (rc != ITO_OK) {
                    d->d = NULL;
                    if (rc != ITO_ESTATE) fail("ito_device_open", rc, __LINE__); /* entry not defined */
                } else {
                    d->kind = kind;
                    d->fdgone = false;
                    reg_t *r = &reg[o * ND + k];
                    atomic_store(&r->d, NULL);
                    atomic_store(&r->f, f);
                    atomic_store(&r->entry, e);
                    atomic_store(&r->d, d->d);
                }
            }
            break;
        case 12: case 13: /* poke a device */
            if (d->d) {
                if (d->kind == 0) EXPECT(ito_device_signal(d->d, 1 + rnd(&s) % 5), ITO_OK);
                else if (d->kind == 1) EXPECT(ito_device_timer_set(d->d, 1 + rnd(&s) % 300000, rnd(&s) % 3 ? 0 : 100000), ITO_OK);
                else if (!d->fdgone && fdgone_on && rnd(&s) % 16 == 0) { /* close the pipe under its device */
                    close(d->pfd[0]);
                    close(d->pfd[1]);
                    d->fdgone = true;
                } else if (!d->fdgone) CHECK(write(d->pfd[1], "x", 1) == 1 || rnd(&s));
                EXPECT(ito_device_signal(d->d, 0), ITO_EINVAL);
                EXPECT(ito_device_signal(d->d, UINT64_MAX), ITO_EINVAL);
                if (d->kind != 1) EXPECT(ito_device_timer_set(d->d, 1000, 0), ITO_EINVAL);
                if (d->kind != 0) EXPECT(ito_device_signal(d->d, 1), ITO_EINVAL);
            }
            break;
        case 14: case 15:
            if (d->d) {
                if (d->kind == 2 && !d->fdgone && rnd(&s) % 2) { /* drain the pipe */
                    char b[64];
                    while (read(d->pfd[0], b, sizeof b) > 0) {
                    }
                }
                if (d->fdgone) EXPECT(ito_device_ack(d->d), ITO_OK, ITO_ESTATE, ITO_EBUSY, ITO_EINVAL, ITO_EIO);
                else EXPECT(ito_device_ack(d->d), ITO_OK, ITO_ESTATE, ITO_EBUSY, ITO_EINVAL);
                uint64_t a, b;
                EXPECT(ito_device_stats(d->d, &a, &b), ITO_OK);
                CHECK(ito_device_fd(d->d) >= 0 || d->fdgone);
            }
            break;
        case 16: /* close a device */
            if (d->d) {
                EXPECT(ito_device_close(d->d), ITO_OK);
                if (rnd(&s) % 2) atomic_store(&reg[o * ND + k].d, NULL); /* else left stale */
                if (d->kind == 2 && !d->fdgone) {
                    close(d->pfd[0]);
                    close(d->pfd[1]);
                }
                bury_dev(d->d);
                d->d = NULL;
            }
            break;
        case 17: /* forged handles near live ones */
            if (f) {
                static const uintptr_t offs[] = {8, 24, 40, 72};
                ito_frame_t *g = (ito_frame_t *)((uintptr_t)f + offs[rnd(&s) % 4]);
                EXPECT(ito_continue(g, 0), ITO_EINVAL);
                CHECK(ito_frame_data(g) == NULL);
                ito_frame_t *g2 = (ito_frame_t *)((uintptr_t)f ^ ((uintptr_t)1 << (48 + rnd(&s) % 16)));
                EXPECT(ito_rearm(g2, 0, 0), ITO_EINVAL);
            }
            if (d->d) {
                ito_device_t *g = (ito_device_t *)((uintptr_t)d->d + 1 + rnd(&s) % 7);
                EXPECT(ito_device_fd(g), ITO_EINVAL);
                ito_device_t *g2 = (ito_device_t *)((uintptr_t)d->d ^ ((uintptr_t)1 << (48 + rnd(&s) % 16)));
                EXPECT(ito_device_close(g2), ITO_EINVAL);
            }
            break;
        case 18: graveyard_round(&s, true, 2); break;
        default: break;
        }
        if (rnd(&s) % 8 == 0) ito_yield();
    }
    /* leave some devices open (finalize closes them), close others; pipes are ours */
    for (int k = 0; k < ND; k++) {
        if (dv[k].d && (dv[k].kind == 2 || rnd(&s) % 2)) {
            EXPECT(ito_device_close(dv[k].d), ITO_OK);
            bury_dev(dv[k].d);
            if (dv[k].kind == 2 && !dv[k].fdgone) {
                close(dv[k].pfd[0]);
                close(dv[k].pfd[1]);
            }
        } else if (dv[k].d) {
            if (dv[k].kind == 1) EXPECT(ito_device_timer_set(dv[k].d, 1 + rnd(&s) % 1000000, 0), ITO_OK);
            left[atomic_fetch_add(&nleft, 1)] = dv[k].d; /* closed by ito_finalize: buried after it */
        }
    }
    for (int i = 0; i < NF; i++)
        if (rnd(&s) % 2) frame_kill(o, i);
    return NULL;
}

/* ---- the foreign pthread ---- */
static _Atomic int fstop;
static _Atomic long fcalls;
static void *foreign(void *arg)
{
    (void)arg;
    uint64_t s = 0xabcdef12345ull;
    am_foreign = true;
    while (!atomic_load(&fstop)) {
        graveyard_round(&s, false, 2);
        int o = (int)(rnd(&s) % NOWN), i = (int)(rnd(&s) % NF);
        shared_frame_t *sh = &shf[o][i];
        if (!atomic_load(&sh->dying)) {
            atomic_fetch_add(&sh->pins, 1);
            ito_frame_t *f = atomic_load(&sh->h);
            if (!atomic_load(&sh->dying) && f)
                EXPECT(ito_continue_value(f, (int)(rnd(&s) % (NE + 1)), rnd(&s)), ITO_OK, ITO_ESTATE, ITO_EPERM,
                       ITO_ERANGE, ITO_EINVAL);
            atomic_fetch_sub(&sh->pins, 1);
        }
        ito_device_t *rd = atomic_load(&reg[rnd(&s) % NREG].d);
        if (rd) {
            uint64_t a;
            EXPECT(ito_device_signal(rd, 1 + rnd(&s) % 3), ITO_OK, ITO_EINVAL, ITO_EAGAIN);
            EXPECT(ito_device_stats(rd, &a, NULL), ITO_OK, ITO_EINVAL);
        }
        /* garbage */
        uintptr_t junk[] = {0, 1, 8, (uintptr_t)&s, (uintptr_t)rnd(&s), (uintptr_t)-1, (uintptr_t)&zruns};
        uintptr_t j = junk[rnd(&s) % 7];
        EXPECT(ito_continue((ito_frame_t *)j, 0), ITO_EINVAL, ITO_ESTATE);
        EXPECT(ito_device_ack((ito_device_t *)j), ITO_EINVAL);
        EXPECT(ito_device_signal((ito_device_t *)j, 1), ITO_EINVAL);
        CHECK(ito_frame_data((ito_frame_t *)j) == NULL);
        atomic_fetch_add(&fcalls, 1);
    }
    return NULL;
}

int main(void)
{
    const char *ms_s = getenv("ITO_FUZZ_MS");
    long ms = ms_s ? atol(ms_s) : 4000;
    fdgone_on = getenv("ITO_FUZZ_FDGONE") && atoi(getenv("ITO_FUZZ_FDGONE"));
    const int rounds = 4;
    static atomic_int done; /* static: the watchdog may read it after main returns */
    ito_test_watchdog(&done, (int)(ms / 1000) + 40, "test_zwt_misuse_fuzz");
    pthread_t ft;
    CHECK(pthread_create(&ft, NULL, foreign, NULL) == 0);
    for (int r = 0; r < rounds; r++) {
        atomic_store(&round_no, r);
        ito_config_t cfg = {.workers = 2};
        CHECK_OK(ito_init(&cfg));
        if (r % 2) EXPECT(ito_device_poll_mode(ITO_DEVICE_BUSY), ITO_DEVICE_SLEEP);
        for (int o = 0; o < NOWN; o++)
            for (int i = 0; i < NF; i++) atomic_store(&shf[o][i].h, NULL);
        atomic_store(&stop, 0);
        ito_thread_t t[NOWN];
        for (int o = 0; o < NOWN; o++) CHECK_OK(ito_create(&t[o], (ito_fn_t)owner, (void *)(intptr_t)o, NULL));
        ito_sleep_ns((uint64_t)(ms / rounds) * 1000000ull);
        atomic_store(&stop, 1);
        for (int o = 0; o < NOWN; o++) CHECK_OK(ito_join(t[o], NULL));
        EXPECT(ito_zwt_retry(), ITO_EPERM);
        ito_frame_t *sf;
        int se;
        EXPECT(ito_zwt_self(&sf, &se), ITO_EPERM);
        EXPECT(ito_zwt_self(NULL, &se), ITO_EINVAL);
        int rc = ito_finalize();
        if (rc != ITO_OK) fail("ito_finalize", rc, __LINE__);
        for (int k = 0; k < atomic_load(&nleft); k++) bury_dev(left[k]);
        atomic_store(&nleft, 0);
        /* every frame left live is stale now */
        for (int o = 0; o < NOWN; o++)
            for (int i = 0; i < NF; i++)
                if (atomic_load(&shf[o][i].h)) {
                    ito_frame_t *f = atomic_exchange(&shf[o][i].h, NULL);
                    EXPECT(ito_continue(f, 0), ITO_EINVAL);
                    bury_frame(f);
                }
    }
    atomic_store(&fstop, 1);
    pthread_join(ft, NULL);
    CHECK_EQ(atomic_load(&zbad), 0);
    printf("zwt runs %ld, foreign rounds %ld, graves %u frames %u devices\n", atomic_load(&zruns),
           atomic_load(&fcalls), atomic_load(&ngframe), atomic_load(&ngdev));
    atomic_store(&done, 1);
    TEST_DONE();
}
