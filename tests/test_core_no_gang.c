/* test_core_no_gang: the core does not depend on the gang mechanism (src/preempt). The
 * membership bit (ITOI_ST_MEMBER) made itoi_exit_current call gang.c's
 * itoi_group_member_exit directly, so every statically linked program, one that never made a
 * group or enabled preemption included, took gang.o and, through it, preempt.o (its signal
 * handler, timers, regions; about 13 KB of text in test_basic), against the rule that
 * mechanisms plug into the scheduler through hooks (docs/ARCHITECTURE.md). Found by an
 * outside tester, h62c, 2026-12-05 (review of the membership bit).
 * Test binaries link libito.a statically: a weak reference pulls no archive member, so
 * the preemption and group entry points are absent unless something the program does use
 * needs them. Creates, joins (in place and waiting), detaches, and bulk-creates threads:
 * the paths that end a thread. */
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#pragma weak ito_group_add
#pragma weak ito_psafe_begin
#pragma weak ito_preempt_enable

static void *body(void *arg) { return arg; }

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    ito_thread_t t;
    void *rv;
    CHECK_OK(ito_create(&t, body, (void *)3, NULL));
    CHECK_OK(ito_join(t, &rv));
    CHECK_EQ((uintptr_t)rv, 3);
    CHECK_OK(ito_create(&t, body, NULL, NULL));
    CHECK_OK(ito_yield());
    CHECK_OK(ito_detach(t));
    ito_thread_t b[4];
    CHECK_OK(ito_create_many(4, body, NULL, 0, NULL, b, NULL, NULL));
    for (int i = 0; i < 4; i++) CHECK_OK(ito_join(b[i], NULL));
    CHECK_OK(ito_finalize());
    CHECK(ito_group_add == NULL);      /* gang.o not linked */
    CHECK(ito_psafe_begin == NULL);    /* preempt.o not linked */
    CHECK(ito_preempt_enable == NULL);
    TEST_DONE();
}
