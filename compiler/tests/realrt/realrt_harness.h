/* realrt_harness.h: the set-up shared by the real-runtime harnesses (x87_main.c,
 * locks_main.c), built without the plugin: ito on `workers` workers, FLAG preemption every
 * 100 us, ULTS ULTs running fn(i), joined; then preemption off and ito_finalize.
 * Returns 0, or 2 when a call failed; *st (if not NULL) gets the preemption statistics. */
#ifndef REALRT_HARNESS_H
#define REALRT_HARNESS_H
#include <stdint.h>

#include "ito/ito.h"

static int realrt_run(int workers, int ults, void *(*fn)(void *), ito_preempt_stats_t *st)
{
    ito_config_t cfg = {.workers = workers};
    if (ito_init(&cfg) != ITO_OK) return 2;
    ito_preempt_config_t pc = {.quantum_us = 100, .mode = ITO_PREEMPT_FLAG};
    if (ito_preempt_enable(&pc) != ITO_OK) return 2;
    ito_thread_t t[64];
    if (ults > 64) return 2;
    for (int i = 0; i < ults; i++)
        if (ito_create(&t[i], fn, (void *)(intptr_t)i, NULL) != ITO_OK) return 2;
    for (int i = 0; i < ults; i++) ito_join(t[i], NULL);
    if (st && ito_preempt_stats(st) != ITO_OK) return 2;
    if (ito_preempt_disable() != ITO_OK || ito_finalize() != ITO_OK) return 2;
    return 0;
}
#endif
