/* test_foreign_teardown: calls that any thread may make, from foreign threads, racing
 * ito_finalize's teardown. Main cycles ito_init (16 workers) -> a ULT that makes a
 * split-phase call (the common areas exist), an eventfd device (the device table exists),
 * a group -> ito_finalize, while four low-priority foreign threads call the statistics
 * (ito_stats, ito_wsc_stats, ito_zwt_stats, ito_preempt_stats, ito_group_stats),
 * ito_preempt_enable/disable, ito_group_create/destroy and the device calls on the
 * current or an earlier runtime's device. Each must return one of its documented codes
 * and never touch freed memory: before the fix ito_stats, ito_wsc_stats and
 * ito_preempt_enable read the workers, areas and tables teardown had freed (ASan:
 * heap-use-after-free within a second; release: a crash now and then), because they
 * checked the state without entering the runtime. Also ito_detach of a joined thread's
 * handle (it read the descriptor while teardown retired it) and ito_create (it read the
 * default stack size while the next ito_init wrote it), both reported by TSan; and
 * ito_thread_id, ito_thread_name (they read a descriptor while teardown cleared it) and
 * ito_frame_create (it carved and reset frames while teardown reset the pools), reported
 * by TSan until 2026-12-03; and ito_frame_data of an earlier runtime's frame (it read the
 * data pointer a new life of the slot wrote) or of a forged handle during the first
 * ito_init (the check read the handle key reserve() wrote), reported by TSan until
 * 2026-12-04. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#define SECONDS 3
#define POKERS 4

static _Atomic int stop;
static _Atomic(ito_device_t *) dev;
static _Atomic(ito_group_t *) grp;
static _Atomic long ok_calls;

static void *split_phase(void *unused)
{
    (void)unused;
    CHECK(ito_getpid() > 0);
    return NULL;
}

static void handler(ito_frame_t *f, int entry, uint64_t v)
{
    (void)f;
    (void)entry;
    (void)v;
}

static _Atomic(uintptr_t) last_thread = 1; /* a forged value until main has joined one */
static _Atomic(uintptr_t) live_thread = 1;  /* a detached ULT of the current runtime */
static _Atomic(uintptr_t) last_frame = 0x10000; /* forged until the first frame */
static void *nothing(void *a) { return a; }
static void *yielder(void *a)
{
    for (int i = 0; i < 3; i++) ito_yield();
    return a;
}

static int one_of(int rc, int a, int b, int c) { return rc == a || rc == b || rc == c; }

static void *poker(void *arg)
{
    struct sched_param sp = {0};
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp); /* descheduled inside the window */
    unsigned k = (unsigned)(uintptr_t)arg;
    while (!atomic_load(&stop)) {
        int rc;
        k = k * 1103515245u + 12345u;
        switch ((k >> 16) % 15) {
        case 0: {
            ito_stats_t s;
            rc = ito_stats(&s);
            CHECK(one_of(rc, ITO_OK, ITO_ESTATE, ITO_ESTATE));
            break;
        }
        case 1: {
            ito_wsc_stats_t s;
            rc = ito_wsc_stats(&s);
            CHECK(one_of(rc, ITO_OK, ITO_ESTATE, ITO_ESTATE));
            break;
        }
        case 2: {
            uint64_t f, st;
            rc = ito_zwt_stats(&f, &st);
            CHECK(one_of(rc, ITO_OK, ITO_ESTATE, ITO_ESTATE));
            break;
        }
        case 3: {
            ito_preempt_config_t cfg = {.quantum_us = 1000, .mode = ITO_PREEMPT_FLAG};
            rc = ito_preempt_enable(&cfg);
            if (!one_of(rc, ITO_OK, ITO_ESTATE, ITO_ESTATE)) fprintf(stderr, "enable: %s\n", ito_strerror(rc));
            CHECK(one_of(rc, ITO_OK, ITO_ESTATE, ITO_ESTATE));
            break;
        }
        case 4:
            rc = ito_preempt_disable();
            CHECK(one_of(rc, ITO_OK, ITO_ESTATE, ITO_ESTATE));
            break;
        case 5: {
            ito_preempt_stats_t s;
            rc = ito_preempt_stats(&s);
            CHECK_EQ(rc, ITO_OK);
            break;
        }
        case 6: {
            ito_group_t *g = NULL;
            rc = ito_group_create(&g);
            CHECK(one_of(rc, ITO_OK, ITO_ESTATE, ITO_ENOMEM));
            if (rc == ITO_OK) CHECK(one_of(ito_group_destroy(g), ITO_OK, ITO_ESTATE, ITO_EINVAL));
            break;
        }
        case 7: {
            ito_preempt_stats_t s;
            rc = ito_group_stats(atomic_load(&grp), &s);
            CHECK(one_of(rc, ITO_OK, ITO_ESTATE, ITO_EINVAL));
            break;
        }
        default: {
            ito_device_t *d = atomic_load(&dev);
            uint64_t n;
            rc = ito_device_signal(d, 1);
            CHECK(one_of(rc, ITO_OK, ITO_EINVAL, ITO_EAGAIN));
            rc = ito_device_stats(d, &n, NULL);
            CHECK(one_of(rc, ITO_OK, ITO_EINVAL, ITO_EINVAL));
            rc = ito_device_fd(d);
            CHECK(rc >= 0 || rc == ITO_EINVAL);
            rc = ito_device_poll_mode(ITO_DEVICE_SLEEP);
            CHECK(rc >= 0 || rc == ITO_ESTATE);
            break;
        }
        case 9: { /* a joined thread's handle: the descriptor may be retired under it */
            rc = ito_detach((ito_thread_t)atomic_load(&last_thread));
            CHECK(one_of(rc, ITO_EJOINED, ITO_ESTATE, ITO_EINVAL));
            break;
        }
        case 10: { /* create reads the runtime's settings: not from a foreign thread */
            ito_thread_t t;
            rc = ito_create(&t, nothing, NULL, NULL);
            CHECK(one_of(rc, ITO_ENOTULT, ITO_ESTATE, ITO_ESTATE));
            break;
        }
        case 11: { /* a detached thread's handle, live or ended, or a joined one's: the
                    * descriptor is read while teardown may retire it */
            uint64_t id;
            rc = ito_thread_id((ito_thread_t)atomic_load(k & 1 ? &live_thread : &last_thread), &id);
            CHECK(one_of(rc, ITO_OK, ITO_EJOINED, ITO_EINVAL));
            break;
        }
        case 12: {
            char name[32];
            rc = ito_thread_name((ito_thread_t)atomic_load(k & 1 ? &live_thread : &last_thread), name, sizeof name);
            CHECK(one_of(rc, ITO_OK, ITO_EJOINED, ITO_EINVAL));
            if (rc == ITO_OK) CHECK(name[0] != 0);
            break;
        }
        case 13: { /* frames from a foreign thread while teardown resets the pools */
            ito_frame_t *f;
            rc = ito_frame_create(&f, 1 + (int)(k % 3), 64);
            CHECK(one_of(rc, ITO_OK, ITO_ESTATE, ITO_ENOMEM));
            if (rc == ITO_OK) CHECK(one_of(ito_frame_destroy(f), ITO_OK, ITO_EINVAL, ITO_EINVAL));
            break;
        }
        case 14: { /* a frame of this runtime or an earlier one (or a forged handle before
                    * the first): its slot may be in a new life */
            void *data = ito_frame_data((ito_frame_t *)atomic_load(&last_frame));
            rc = data ? ITO_OK : ITO_EINVAL;
            break;
        }
        }
        if (rc == ITO_OK) atomic_fetch_add(&ok_calls, 1);
    }
    return NULL;
}

int main(void)
{
    pthread_t p[POKERS];
    for (uintptr_t i = 0; i < POKERS; i++) CHECK_EQ(pthread_create(&p[i], NULL, poker, (void *)(i + 1)), 0);
    uint64_t end = ito_now_ns() + SECONDS * 1000000000ull;
    long cycles = 0;
    while (ito_now_ns() < end) {
        ito_config_t cfg = {.workers = 16};
        CHECK_OK(ito_init(&cfg));
        ito_thread_t t;
        CHECK_OK(ito_create(&t, split_phase, NULL, NULL));
        CHECK_OK(ito_join(t, NULL));
        atomic_store(&last_thread, (uintptr_t)t);
        CHECK_OK(ito_create(&t, yielder, NULL, NULL));
        atomic_store(&live_thread, (uintptr_t)t);
        CHECK_OK(ito_detach(t));
        ito_frame_t *f;
        CHECK_OK(ito_frame_create(&f, 1, 16 + 8 * (int)(cycles % 4)));
        atomic_store(&last_frame, (uintptr_t)f);
        CHECK_OK(ito_entry_set(f, 0, handler, 1, ITO_MODE_USER));
        ito_device_t *d;
        CHECK_OK(ito_device_eventfd(f, 0, &d));
        atomic_store(&dev, d);
        ito_group_t *g;
        int rc = ito_group_create(&g);
        CHECK(rc == ITO_OK || rc == ITO_ENOMEM); /* the pokers may hold every slot a moment */
        if (rc == ITO_OK) atomic_store(&grp, g);
        ito_yield();
        CHECK_OK(ito_device_close(d));
        for (int i = 0; i < 1000 && ito_frame_destroy(f) == ITO_EBUSY; i++) ito_yield(); /* a handler queued */
        CHECK_OK(ito_finalize());
        cycles++;
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < POKERS; i++) pthread_join(p[i], NULL);
    CHECK(cycles > 0);
    CHECK(atomic_load(&ok_calls) > 0);
    TEST_DONE();
}
