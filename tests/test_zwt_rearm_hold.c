/* test_zwt_rearm_hold: re-arms and firings of one code-less entry from several threads
 * leave it in a state some order of them explains (src/zwt/fire.c rearm_in, zwt.h).
 * ITO_FAULT_REARM=1 (failure-injection builds) makes the first re-arm after ito_init sleep
 * 50 ms inside its window, between its look at the entry and its commit; a foreign thread
 * makes that re-arm (A) while main, 10 ms later, acts on the entry.
 *  1. Found by a reviewer with an injected delay (2026-12-04): a re-arm cleared FIRED and
 *     then stored its count with a CAS from the count it had seen (0, the entry fired).
 *     Main re-armed in between (B) and fired (F), so the word was 0 again, A's CAS
 *     succeeded, and the entry was armed yet marked fired: a wait returned at once
 *     although no firing of the arming in force had happened (a continuation was then
 *     accepted and fired it a second time). Now A's CAS fails and A looks again (B, F, A).
 *     Either way the wait's answer must agree with the count: a wait that returns ITO_OK
 *     leaves a continuation refused; one that times out leaves exactly one accepted,
 *     which fires the entry.
 *  2. Fan-in 2, one count taken, then A re-arms while main continues (F): whichever comes
 *     first, nothing fires early or twice: the wait times out, and the entry fires after
 *     one or two more continuations, never more.
 * A first fix had the re-arm hold the sync word while continuations waited: a
 * descheduled foreign re-armer stalled workers for up to 2 s (found by its reviewer).
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
    uint64_t soon = 20 * 1000 * 1000;
    if (part == 1) {
        int w = ito_frame_wait_until(fr, 0, ito_deadline_in(soon));
        CHECK(w == ITO_OK || w == ITO_ETIMEDOUT);
        if (w == ITO_ETIMEDOUT) { /* armed (A last): one count left */
            CHECK_OK(ito_continue(fr, 0));
            CHECK_OK(ito_frame_wait_until(fr, 0, ito_deadline_in(1000 * soon)));
        }
        CHECK_EQ(ito_continue(fr, 0), ITO_ESTATE); /* fired: its count is taken */
    } else {
        CHECK_EQ(ito_frame_wait_until(fr, 0, ito_deadline_in(soon)), ITO_ETIMEDOUT);
        int more = 0, w;
        do {
            CHECK_OK(ito_continue(fr, 0));
            more++;
        } while ((w = ito_frame_wait_until(fr, 0, ito_deadline_in(soon))) == ITO_ETIMEDOUT && more < 3);
        CHECK_OK(w);
        CHECK(more == 1 || more == 2);
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
