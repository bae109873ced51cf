/* test_valgrind_stacks: a program that switches between ULTs runs clean under valgrind's
 * memcheck (the test valgrind_memcheck runs this program under it, tests/CMakeLists.txt;
 * ctest also runs it alone, where it checks its own results).
 *
 * Found by an outside tester (h68d, 2026-12-06): memcheck takes a change of the stack
 * pointer by less than 2 MB for a frame pushed or popped on one stack and paints what
 * lies between as undefined or inaccessible. ULT stacks of one region lie 64 KiB apart,
 * so every switch between two of them made it report errors that are none: a 16-ULT
 * program with a mutex and yields gave ~150 error contexts ("Invalid read", "Conditional
 * jump depends on uninitialised value" in ito_yield, itoa_switch_abi, ito_mutex_lock, the
 * user's own function) and a C++ one with exceptions 75,000 errors. Now each stack is
 * registered with valgrind when it is carved (src/core/stack.c): 0 errors.
 * Here: ULTs of two stack sizes keep initialised data in their frames across yields,
 * mutex waits and moves between workers, and check it after each switch; a second
 * runtime (init after finalize) reuses the address range of the first one's stacks. */
#include <string.h>

#include "ito/ito.h"
#include "ito_test.h"

#define NULT 12
#define ROUNDS 40

static ito_mutex_t mu;
static long total;

static void *work(void *arg)
{
    long id = (long)arg;
    unsigned char frame[2048];
    memset(frame, (int)(id & 0xff), sizeof frame);
    long sum = 0;
    for (int r = 0; r < ROUNDS; r++) {
        if (ito_mutex_lock(&mu) != ITO_OK) return NULL;
        total += frame[r % (int)sizeof frame];
        ito_mutex_unlock(&mu);
        ito_yield();
        for (size_t i = 0; i < sizeof frame; i += 256) /* the frame survived the switch */
            if (frame[i] != (unsigned char)(id & 0xff)) return NULL;
        sum += frame[r];
    }
    return (void *)(sum + 1);
}

static void run_once(void)
{
    CHECK_OK(ito_init(NULL));
    CHECK_OK(ito_mutex_init(&mu));
    total = 0;
    ito_thread_t t[NULT];
    for (long i = 0; i < NULT; i++) {
        ito_attr_t a;
        CHECK_OK(ito_attr_init(&a));
        a.stack_size = (i % 2) ? 16 << 10 : 0; /* two classes: two regions */
        CHECK_OK(ito_create(&t[i], work, (void *)i, &a));
    }
    long want = 0;
    for (long i = 0; i < NULT; i++) {
        void *r = NULL;
        CHECK_OK(ito_join(t[i], &r));
        CHECK_EQ((long)r, ROUNDS * (i & 0xff) + 1);
        want += ROUNDS * (i & 0xff);
    }
    CHECK_EQ(total, want);
    CHECK_OK(ito_mutex_destroy(&mu));
    CHECK_OK(ito_finalize());
}

int main(void)
{
    run_once();
    run_once();
    TEST_DONE();
}
