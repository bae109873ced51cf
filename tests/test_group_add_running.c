/* test_group_add_running: ito_group_add of a ULT that is running on another worker (it
 * is not ending, which preempt.h asks) while FLAG-mode preemption and gang scheduling are
 * on. group_add stored the ULT's group slot with a plain store while the other worker's
 * pick filter (gang.c: gang_filter) and tick (preempt.c: on_tick) read it with plain
 * loads: a data race that TSan reported on every run on 2 workers (found by an outside
 * tester, h59b, 2026-12-05). The slot is now written and read with relaxed atomics. */
#define _GNU_SOURCE
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito/coop.h"
#include "ito/preempt.h"
#include "ito_test.h"

#define ROUNDS 20
#define PER 4

/* ito_test_coop_spin, with an acquire load of stop: main's add happens before the
 * spinner's end (its on_exit is read there), as preempt.h asks of the program. */
static void *spin(void *arg)
{
    ito_test_spinner_t *s = arg;
    while (!atomic_load_explicit(s->stop, memory_order_acquire)) {
        atomic_fetch_add_explicit(&s->progress, 1, memory_order_relaxed);
        ito_test_coop_point();
    }
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    ito_preempt_config_t cfg = {.quantum_us = 200, .mode = ITO_PREEMPT_FLAG, .gang = 1};
    CHECK_OK(ito_preempt_enable(&cfg));
    for (int r = 0; r < ROUNDS; r++) {
        _Atomic int stop = 0;
        ito_test_spinner_t s[PER];
        ito_thread_t t[PER];
        ito_group_t *g[2];
        CHECK_OK(ito_group_create(&g[0]));
        CHECK_OK(ito_group_create(&g[1]));
        ito_attr_t a;
        CHECK_OK(ito_attr_init(&a));
        a.worker = 1; /* runs beside main, which adds it */
        for (int i = 0; i < PER; i++) {
            s[i].stop = &stop;
            atomic_store(&s[i].progress, 0);
            CHECK_OK(ito_create(&t[i], spin, &s[i], &a));
        }
        for (int i = 0; i < PER; i++) /* each has run (its worker took and filtered it) */
            while (atomic_load(&s[i].progress) == 0) CHECK_OK(ito_yield());
        for (int i = 0; i < PER; i++) CHECK_OK(ito_group_add(g[i % 2], t[i]));
        ito_test_sleep_us(5000);
        atomic_store(&stop, 1);
        for (int i = 0; i < PER; i++) CHECK_OK(ito_join(t[i], NULL));
        CHECK_OK(ito_group_destroy(g[0]));
        CHECK_OK(ito_group_destroy(g[1]));
    }
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
