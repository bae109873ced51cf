/* test_overflow_child: the child process of tests/overflow_check.sh.
 *
 * Without arguments (as ctest's glob runs every test_*.c) it does nothing and exits 0.
 * With --overflow it starts ito, creates a ULT named "deep-recursion" with a 16 KiB
 * stack and recurses in it until the stack overflows into its guard page: ito must
 * report the overflow on stderr, naming the thread, and the process must die with a
 * non-zero status. With --sanitizer it prints which sanitizer it was built with. */
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

static volatile uint64_t sink;
static volatile uint64_t limit = UINT64_MAX; /* never reached; keeps the recursion finite for the compiler */

__attribute__((noinline)) static uint64_t recurse(uint64_t depth)
{
    volatile char frame[256]; /* a real frame at every level */
    if (depth >= limit) return 0;
    frame[0] = (char)depth;
    frame[255] = (char)(depth >> 8);
    uint64_t r = recurse(depth + 1) + (uint64_t)frame[0] + (uint64_t)frame[255];
    sink = r; /* not a tail call */
    return r;
}

static void *deep(void *unused)
{
    (void)unused;
    sink = recurse(0);
    return NULL;
}

int main(int argc, char **argv)
{
    (void)ito_test_failures;
    if (argc > 1 && strcmp(argv[1], "--sanitizer") == 0) {
#if defined(ITOI_ASAN)
        puts("address");
#elif defined(ITOI_TSAN)
        puts("thread");
#else
        puts("none");
#endif
        return 0;
    }
    if (argc < 2 || strcmp(argv[1], "--overflow") != 0) return 0;
    CHECK_OK(ito_init(NULL));
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.stack_size = 16 * 1024;
    a.name = "deep-recursion";
    ito_thread_t t;
    CHECK_OK(ito_create(&t, deep, NULL, &a));
    CHECK_OK(ito_join(t, NULL));
    /* Not reached: the overflow ends the process. */
    fprintf(stderr, "test_overflow_child: the recursion returned?\n");
    return 0;
}
