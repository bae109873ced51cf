/* tlsmove.c: outside code built by ito-cc (the probe of compiler/plugin/ThreadAddr.h).
 * Between two uses of errno and of a thread_local variable it calls hop(), after which the
 * ULT may run on another worker; the addresses it then uses must be those of the kernel
 * thread it runs on now. Without the plugin, clang computes both addresses once before the
 * loop (glibc's __errno_location is const, llvm.threadlocal.address is memory(none)) and
 * keeps them (also an address converted to an integer, e.g. a per-thread key): after a
 * move the ULT wrote the other worker's errno and variable. The values
 * are the harness's business; each stale address counts one in *stale. */
#include <errno.h>
#include <pthread.h>
#include <resolv.h>
#include <setjmp.h>
#include <stdint.h>

_Thread_local int tls_mark;
_Thread_local struct pair { long a, b; } tls_pair;

void hop(void);         /* tlsmove_main.c: busy work and a yield; the ULT may move */
int *here_errno(void);  /* tlsmove_main.c: the calling kernel thread's errno */
int *here_mark(void);   /* tlsmove_main.c: the calling kernel thread's tls_mark */
long *here_pair_b(void); /* tlsmove_main.c: the calling kernel thread's tls_pair.b */
uintptr_t here_mark_key(void); /* tlsmove_main.c: the same as an integer */
/* tlsmove_main.c: the calling kernel thread's resolver state. glibc declares __res_state
 * (the _res macro: *__res_state()) const, as it does __errno_location, so clang computed
 * &_res once for the loop and the plugin did not take it anew: after a move the ULT used
 * the old worker's _res (2,000-5,000 stale in 3 of 3 runs, every variant; found by an
 * outside tester, h63d, 2026-12-06). */
struct __res_state *here_res(void);
/* tlsmove_main.c: the calling kernel thread's thread pointer (%fs:0). clang's
 * __builtin_thread_pointer() (llvm.thread.pointer, memory(none); how glibc tells programs to
 * reach their rseq area: __builtin_thread_pointer() + __rseq_offset) was computed once for
 * the loop and not taken anew: after a move the ULT used the old worker's (2,000-4,700
 * stale in 8 of 8 runs, four variants; found by an outside tester, h63d, 2026-12-06). */
void *here_tp(void);

/* A static thread_local: in a -fPIC module that is not a PIE (a shared library, or the
 * -pic builds here) the back end reaches it through the module's TLS block (local-dynamic
 * model) and computes that block's address once per function for all such accesses. */
static _Thread_local long tls_local;

/* the calling kernel thread's tls_local, computed afresh (and no yield point in it) */
__attribute__((noinline, optnone, annotate("ito_noyield"))) static long *here_local(void)
{
    return &tls_local;
}

/* The address as a value before and after the move in one block: the back end computed
 * it once for both, undoing the retake (found by an outside tester, 2026-12-05). */
__attribute__((noinline)) static void same_mark(int *p, int *stale)
{
    if (p != here_mark()) (*stale)++;
}

/* A function that calls setjmp (instrumented since h74b; skipped before, as returns_twice)
 * whose callees switch: its addresses are taken anew all the same (it kept the one from
 * before its loop; the same tester). */
__attribute__((noinline)) static void with_setjmp(int i, int *stale)
{
    jmp_buf jb;
    if (setjmp(jb)) return;
    for (int k = 0; k < 2; k++) {
        tls_mark = i + k;
        hop();
        if (&tls_mark != here_mark()) (*stale)++;
    }
}

/* A call-free loop that asks for the thread's identity in every iteration: clang computed
 * pthread_self() once before the loop (no call in it writes what the plugin said
 * pthread_self reads), and the plugin then put yield points into the loop: a ULT moved by
 * a quantum's end (FLAG preemption, tlsmove_main.c) kept comparing the old worker's id
 * (h63d's F4, found by an outside tester, 2026-12-06). Each iteration compares the answer
 * with the kernel thread's own (glibc keeps pthread_self() at %fs:0x10; the asm, a pure
 * function of k for the compiler, does not keep the call in the loop). Called by self_probe: a few ULTs that
 * nap between loops, so that a napping ULT's worker steals one preempted inside its loop. */
__attribute__((noinline)) static void self_loop(long n, int *stale, int *moved)
{
    const pthread_t owner = pthread_self();
    long bad = 0, away = 0;
    for (long k = 0; k < n; k++) {
        uintptr_t now; /* not volatile: a volatile asm would keep the call in the loop */
        __asm__("mov %%fs:0x10, %0" : "=r"(now) : "r"(k));
        away += now != (uintptr_t)owner;
        if (pthread_equal(pthread_self(), owner) != (now == (uintptr_t)owner)) bad++;
    }
    if (bad) (*stale)++;
    if (away) (*moved)++;
}

void self_probe(int rounds, int *stale, int *moved)
{
    for (int i = 0; i < rounds; i++) {
        self_loop(20000, stale, moved);
    }
}

void probe(int rounds, int *stale, int *lost)
{
    for (int i = 0; i < rounds; i++) {
        errno = i;
        tls_mark = i;
        tls_pair.b = i;
        tls_local = i;
        _res.retrans = i;
        void *tp = __builtin_thread_pointer();
        __asm__ volatile("" : : "r"(tp));
        same_mark(&tls_mark, stale);
        hop();
        same_mark(&tls_mark, stale);
        if (&errno != here_errno()) (*stale)++;
        if (&tls_mark != here_mark()) (*stale)++;
        if (&tls_pair.b != here_pair_b()) (*stale)++; /* an address computed from one */
        if ((uintptr_t)&tls_mark != here_mark_key()) (*stale)++; /* as an integer: a key */
        if (&tls_local != here_local()) (*stale)++; /* local-dynamic under -fPIC */
        if (&_res != here_res()) (*stale)++; /* glibc's const __res_state */
        if (__builtin_thread_pointer() != here_tp()) (*stale)++;
        if (errno != i) (*lost)++; /* errno travels with the ULT (src/core/ultstate.h) */
        if (i % 8 == 0) with_setjmp(i, stale);
    }
}
