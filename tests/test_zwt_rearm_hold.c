/* test_zwt_rearm_hold: ito_rearm holds the entry's sync word while it re-arms, so re-arms
 * and firings from several threads are ordered (src/zwt/fire.c rearm_in, zwt.h).
 * ITO_FAULT_REARM=1 (failure-injection builds) makes the first ito_rearm after ito_init
 * sleep 50 ms inside its window, between its look at the entry and its commit; a foreign
 * thread makes that re-arm (A) while main, 10 ms later, re-arms the entry again (B) and
 * fires it (F).
 *  1. Found by a reviewer with an injected delay (2026-12-04): a re-arm cleared FIRED and
 *     then stored its count with a CAS from the count it had seen (0, the entry fired).
 *     B re-armed in between and F fired, so the word was 0 again, A's CAS succeeded, and
 *     the entry was armed yet marked fired: a wait returned at once although the entry's
 *     count was not taken (a continuation was then accepted and fired it a second time).
 *     Now B and F wait out A's hold: A, B, F in that order; the entry is fired, so the
 *     wait returns ITO_OK and a further continuation is refused.
 *  2. The order is also the documented one for an armed entry (zwt.h ito_rearm): a
 *     continuation made during a re-arm counts against the new arming. Fan-in 2, one
 *     count taken, A re-arms (to 2) while F continues: afterwards one count is left, so
 *     the wait times out and one more continuation fires the entry.
 * With 1 and 2 workers. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_frame_t *fr;

static void *slow_rearm(void *arg)
{
    (void)arg;
    CHECK_OK(ito_rearm(fr, 0, 0)); /* the first re-arm since ito_init: 50 ms in its window */
    return NULL;
}

static void pause_ms(long ms)
{
    struct timespec ts = {0, ms * 1000 * 1000};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static void run(int workers, int part)
{
    CHECK_OK(setenv("ITO_FAULT_REARM", "1", 1));
    ito_config_t cfg = {.workers = workers};
    CHECK_OK(ito_init(&cfg));
    CHECK_OK(ito_frame_create(&fr, 1, 0));
    CHECK_OK(ito_entry_set(fr, 0, NULL, part == 1 ? 1 : 2, ITO_MODE_USER));
    CHECK_OK(ito_continue(fr, 0)); /* part 1: fired; part 2: one count of two taken */
    pthread_t t;
    CHECK_OK(pthread_create(&t, NULL, slow_rearm, NULL));
    pause_ms(10); /* A is inside its window now */
    if (part == 1) CHECK_OK(ito_rearm(fr, 0, 0)); /* B */
    CHECK_OK(ito_continue(fr, 0));                 /* F */
    CHECK_OK(pthread_join(t, NULL));
    if (part == 1) {
        CHECK_OK(ito_frame_wait_until(fr, 0, ito_deadline_in(20 * 1000 * 1000)));
        CHECK_EQ(ito_continue(fr, 0), ITO_ESTATE); /* fired: its count is taken */
    } else {
        CHECK_EQ(ito_frame_wait_until(fr, 0, ito_deadline_in(20 * 1000 * 1000)), ITO_ETIMEDOUT);
        CHECK_OK(ito_continue(fr, 0)); /* the last count of the new arming */
        CHECK_OK(ito_frame_wait_until(fr, 0, ito_deadline_in(1000 * 1000 * 1000)));
        CHECK_EQ(ito_continue(fr, 0), ITO_ESTATE);
    }
    CHECK_OK(ito_frame_destroy(fr));
    CHECK_OK(ito_finalize());
    CHECK_OK(unsetenv("ITO_FAULT_REARM"));
}

int main(void)
{
    for (int workers = 1; workers <= 2; workers++)
        for (int part = 1; part <= 2; part++) run(workers, part);
    TEST_DONE();
}
