/* test_process_restore_slack: ito_finalize gives the calling thread its timer slack back
 * (docs/ARCHITECTURE.md: finalize "gives the caller back what ito_init changed: its
 * SIGSEGV/SIGBUS handlers, alternate signal stack, timer slack and affinity"; ito_init
 * sets the workers' slack to 1 us, worker 0 being the caller). test_process_restore
 * checks the handlers and the alternate stack, test_affinity the mask; the slack was
 * unchecked. Also after a second init/finalize cycle. */
#define _GNU_SOURCE
#include <sys/prctl.h>

#include "ito/ito.h"
#include "ito_test.h"

int main(void)
{
    CHECK_OK(prctl(PR_SET_TIMERSLACK, 123456UL, 0, 0, 0));
    CHECK_EQ(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), 123456);
    for (int round = 0; round < 2; round++) {
        CHECK_OK(ito_init(NULL));
        CHECK(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0) != 123456); /* the runtime's while it runs */
        CHECK_OK(ito_finalize());
        CHECK_EQ(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), 123456);
    }
    TEST_DONE();
}
