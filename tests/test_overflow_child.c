/* test_overflow_child: the child process of tests/overflow_check.sh.
 *
 * Without arguments (as ctest's glob runs every test_*.c) it does nothing and exits 0.
 * With --overflow it starts ito, creates a ULT named "deep-recursion" with a 16 KiB
 * stack and recurses in it until the stack overflows into its guard page: ito must
 * report the overflow on stderr, naming the thread, and the process must die with a
 * non-zero status. With --jump the ULT has a 64 KiB stack and one frame with a 96 KiB
 * array (it jumps over a single guard page at once): the 64 KiB guard below a default
 * stack must still catch it. With --unnamed the ULT has no name: the report must use the
 * name ito_thread_name gives ("ult-<id>", printed on stdout first). With --sigframe the
 * ULT uses its stack nearly up and a signal arrives: the kernel cannot push the signal's
 * frame (SIGSEGV without a fault address), and the report must say so (release tree;
 * exit 77, skipped, under the sanitizers). With --sanitizer it
 * prints which sanitizer it was built with. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

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

/* --sigframe: use the stack down to about 1 KiB above its end (16 KiB stack; the
 * ULT's entry frames take a few hundred bytes above the first local), then send this
 * thread a signal: its frame (over a kilobyte, the vector state) cannot be pushed. */
#define SIGFRAME_STACK (16 * 1024)
static char *stack_top;
static pid_t self_pid, self_tid;

__attribute__((unused)) static void on_usr1(int sig) { (void)sig; }

__attribute__((noinline)) static uint64_t descend(void)
{
    volatile char frame[64];
    frame[0] = 1;
    if ((size_t)(stack_top - (char *)frame) < SIGFRAME_STACK - 1200) return descend() + (uint64_t)frame[0];
    syscall(SYS_tgkill, self_pid, self_tid, SIGUSR1);
    return frame[0];
}

__attribute__((unused)) static void *sigframe(void *unused)
{
    (void)unused;
    volatile char top;
    stack_top = (char *)&top;
    /* bind the calls now: the dynamic linker's lazy binding takes kilobytes of stack */
    self_pid = getpid();
    self_tid = gettid();
    syscall(SYS_getppid);
    sink = descend();
    return NULL;
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
    bool frame = strcmp(argv[1], "--sigframe") == 0;
    if (frame) {
#if defined(ITOI_ASAN) || defined(ITOI_TSAN)
        return 77; /* the sanitizers' frames and fake stacks make the depth unknowable: skipped */
#else
        struct sigaction sa = {.sa_handler = on_usr1};
        sigemptyset(&sa.sa_mask);
        CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
        CHECK_OK(ito_init(NULL));
        ito_attr_t fa;
        CHECK_OK(ito_attr_init(&fa));
        fa.stack_size = SIGFRAME_STACK;
        fa.name = "deep-recursion";
        ito_thread_t ft;
        CHECK_OK(ito_create(&ft, sigframe, NULL, &fa));
        CHECK_OK(ito_join(ft, NULL));
        fprintf(stderr, "test_overflow_child: the signal was delivered?\n");
        return 0;
#endif
    }
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
