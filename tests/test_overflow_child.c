/* test_overflow_child: the child process of tests/overflow_check.sh.
 *
 * Without arguments (as ctest's glob runs every test_*.c) it does nothing and exits 0.
 * With --overflow it starts ito, creates a ULT named "deep-recursion" with a 16 KiB
 * stack and recurses in it until the stack overflows into its guard page: ito must
 * report the overflow on stderr, naming the thread, and the process must die with a
 * non-zero status. With --jump the ULT has a 64 KiB stack and one frame with a 96 KiB
 * array (it jumps over a single guard page at once): the 64 KiB guard below a default
 * stack must still catch it. With --unnamed the ULT has no name: the report must use the
 * name ito_thread_name gives ("ult-<id>", printed on stdout first). With --sanitizer it
 * prints which sanitizer it was built with. */
#include <stdatomic.h>
#include <stdbool.h>
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

static _Atomic int go = 1; /* --unnamed: main prints the name first (another worker may run deep) */

static void *deep(void *unused)
{
    (void)unused;
    while (!atomic_load(&go)) CHECK_OK(ito_yield());
    sink = recurse(0);
    return NULL;
}

__attribute__((noinline)) static void *big_frame(void *unused)
{
    (void)unused;
    volatile char a[96 * 1024];
    __asm__ volatile("" : : "r"(a) : "memory"); /* the array escapes: no compiler may shrink it */
    a[0] = 1; /* the lowest byte: 32 KiB below a 64 KiB stack */
    a[sizeof a - 1] = 2;
    sink = (uint64_t)a[0] + (uint64_t)a[sizeof a - 1];
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
    if (argc < 2) return 0;
    bool jump = strcmp(argv[1], "--jump") == 0, unnamed = strcmp(argv[1], "--unnamed") == 0;
    if (!jump && !unnamed && strcmp(argv[1], "--overflow") != 0) return 0;
    CHECK_OK(ito_init(NULL));
    atomic_store(&go, !unnamed);
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.stack_size = jump ? 64 * 1024 : 16 * 1024;
    a.name = unnamed ? NULL : "deep-recursion";
    ito_thread_t t;
    CHECK_OK(ito_create(&t, jump ? big_frame : deep, NULL, &a));
    if (unnamed) {
        char name[64];
        CHECK_OK(ito_thread_name(t, name, sizeof name));
        printf("%s\n", name);
        fflush(stdout);
        atomic_store(&go, 1);
    }
    CHECK_OK(ito_join(t, NULL));
    /* Not reached: the overflow ends the process. */
    fprintf(stderr, "test_overflow_child: the recursion returned?\n");
    return 0;
}
