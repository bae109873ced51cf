/* test_preempt_zwt: ito_preempt_enable and ito_preempt_disable refuse a ZWT with
 * ITO_ENOTULT (preempt.h: "not a ZWT"; they wait for a pthread mutex, which a ZWT must not
 * do). Found by an API audit (2026-12-05): both returned ITO_OK from a ZWT. A ULT and a
 * foreign thread may still call them. */
#include <pthread.h>
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito_test.h"

static atomic_int rc_enable = 1, rc_disable = 1, ran;

static void in_zwt(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    (void)e;
    (void)v;
    atomic_store(&rc_enable, ito_preempt_enable(&(ito_preempt_config_t){.mode = ITO_PREEMPT_FLAG}));
    atomic_store(&rc_disable, ito_preempt_disable());
    atomic_store(&ran, 1);
}

static void *foreign(void *arg)
{
    (void)arg;
    CHECK_OK(ito_preempt_enable(&(ito_preempt_config_t){.mode = ITO_PREEMPT_FLAG}));
    CHECK_OK(ito_preempt_disable());
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, 1, 0));
    CHECK_OK(ito_entry_set(f, 0, in_zwt, 1, ITO_MODE_USER));
    CHECK_OK(ito_continue(f, 0));
    while (!atomic_load(&ran)) CHECK_OK(ito_yield());
    CHECK_EQ(atomic_load(&rc_enable), ITO_ENOTULT);
    CHECK_EQ(atomic_load(&rc_disable), ITO_ENOTULT);

    /* the refusal changed nothing: preemption is still off, and a ULT and a foreign
     * thread may toggle it */
    CHECK_EQ(ito_preempt_disable(), ITO_ESTATE);
    CHECK_OK(ito_preempt_enable(&(ito_preempt_config_t){.mode = ITO_PREEMPT_FLAG}));
    CHECK_OK(ito_preempt_disable());
    pthread_t th;
    CHECK_OK(pthread_create(&th, NULL, foreign, NULL));
    CHECK_OK(pthread_join(th, NULL));

    CHECK_OK(ito_frame_destroy(f));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
