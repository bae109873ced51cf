/* coop.c: the two words compiled yield points test, and the ABI and full-save yields
 * for compiler-inserted yield points (the minimal one is assembly:
 * src/arch/x86_64/coopyield_x86_64_sysv_elf_gas.S; sanitizer trees use the C version
 * below, which goes through the annotated scheduler path).
 *
 * The words, both per kernel thread (so per worker: a check reads the word of the worker
 * its ULT runs on now):
 *   ito_coop_flag    set by a timer (the FLAG preemption mode, a program's own ticker)
 *                    when a slice ends; code built with the flag check (the default)
 *                    yields when it is non-zero.
 *   ito_coop_budget  a countdown of estimated instructions (ito-cc --ito-check=budget):
 *                    each point subtracts what ran since the previous one and yields
 *                    when the word goes negative. Only its own kernel thread writes it:
 *                    no timer, no cache line moving between cores per tick.
 * Every compiled yield enters itoi_coop_due() (itoi.h) first, which clears the flag and refills
 * the budget with the quantum (also outside a ULT, where the yield then does nothing:
 * a negative budget would send every later check to the slow path), and says whether
 * to switch: yes for a set flag or a call with budget left (a yield point by hand, a
 * direct call); for an expired budget, yes unless the running ULT is inside a
 * preemption-safe region (no check switches there) or the slice (ito_coop_set_budget's
 * slice_ns) has not yet ended, counted from this worker's last switch through an
 * expired budget. The quantum and the slice are process-wide, read relaxed. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ito/coop.h"
#include "itoi.h"

_Thread_local volatile int ito_coop_flag;
_Thread_local volatile int ito_coop_budget;

_Alignas(16) itoi_coop_conf_t itoi_coop_conf = {.quantum = ITO_COOP_BUDGET_DEFAULT};

int ito_coop_set_budget(long instructions, unsigned long long slice_ns)
{
    if (instructions < 1 || instructions > ITO_COOP_BUDGET_MAX || slice_ns > ITO_COOP_SLICE_MAX_NS)
        return ITO_EINVAL;
    atomic_store_explicit(&itoi_coop_conf.quantum, (int)instructions, memory_order_relaxed);
    atomic_store_explicit(&itoi_coop_conf.slice_ns, slice_ns, memory_order_relaxed);
    return ITO_OK;
}

bool itoi_coop_expired(itoi_worker_t *w)
{
    if (!w || !w->cur || ITOI_PSAFE(w->cur)) return false;
    uint64_t slice = atomic_load_explicit(&itoi_coop_conf.slice_ns, memory_order_relaxed);
    if (slice == 0) return true;
    uint64_t now = itoi_now_ns();
    if (now - w->coop_t0 < slice) return false;
    w->coop_t0 = now;
    return true;
}

/* A compiled yield taken on a kernel thread other than its worker's. The child of vfork()
 * (and of clone(CLONE_VM) without CLONE_SETTLS) runs on its parent's stack with its
 * parent's thread pointer, so its checks read the parent's ito_coop_flag and
 * ito_coop_budget (set when the parent forked: the parent's yield point had not run yet)
 * and its yield found the parent's worker: it switched to the parent's other ULTs inside
 * the child process (their waitpid failed with ECHILD, their getpid was the child's) while
 * the parent slept in vfork. Code the child runs before exec or _exit is ordinary code
 * built by ito-cc (CPython's _posixsubprocess runs child_exec there), which only the
 * vfork caller itself is left without checks (returns_twice). The kernel thread id is
 * the one thing such a child does not share: one system call, made only when a check is
 * due (once a quantum), never on the checks' fast path. Nothing cheaper tells the two
 * apart: the child's stack pointer is within its parent's ULT stack, and its rseq area
 * (unregistered by the kernel for a CLONE_VM child) still holds the parent's values.
 * Found by an outside tester, h66d, 2026-12-06 (test_coop_vfork). */
bool itoi_coop_other_thread(itoi_worker_t *w)
{
    if (!w) return false;
    int tid = atomic_load_explicit(&w->tid, memory_order_relaxed);
    return tid != 0 && tid != (int)syscall(SYS_gettid);
}

/* A compiled yield taken inside a signal handler of the program. ito-cc leaves out of its
 * points the handlers it sees registered in the same module, and what they call directly
 * (compiler/plugin/Safety.h); a handler registered in another file, or a function it
 * calls there, has points. A yield there switched to the worker's next ULT with the
 * signal frame on the stack: that ULT ran with the handler's signal mask, and a handler
 * on the worker's one alternate signal stack (SA_ONSTACK) left its frames there for the
 * next signal on that worker to overwrite, after which the first handler's sigreturn
 * resumed another ULT's context (test_coop_in_signal_handler). The tests are those of the
 * signal tick (preempt.c, in_handler), from the inside, with two system calls here (the
 * tick reads the same facts in its ucontext), made only when a check is due:
 *  - the mask blocks, beyond what the workers block at their start (and SIGURG, which
 *    the tick's own handler blocks), a signal the program handles: the kernel blocks a
 *    handler's own signal while it runs (unless SA_NODEFER). Only handled signals count,
 *    so a ULT that blocks a signal it takes with sigwait or a signalfd (no handler) still
 *    switches at its points; one that blocks a signal it has a handler for waits until
 *    it unblocks it. One sigaction(2) per such signal, only when the mask has extra ones;
 *  - the stack pointer is on the thread's alternate signal stack (sigaltstack(2) says
 *    SS_ONSTACK: the program may have installed its own, CPython's faulthandler does),
 *    asked only when it is outside the running ULT's own stack (the main ULT's, a stack of
 *    the program's own making, or an alternate stack).
 * A handler installed with SA_NODEFER, an empty sa_mask and no SA_ONSTACK is not told
 * apart, nor one of SIGURG off the alternate stack (coop.h). The flag was cleared and the budget refilled: the yield waits for the
 * next quantum. Kept set, every later point of the handler (and of a ULT that blocks a
 * handled signal, for as long as it does) would make these calls, microseconds each.
 * The mask is read at every due yield: a handler leaves no trace in memory that ito could
 * read instead (it runs on the ULT's stack unless SA_ONSTACK, and the handlers are the
 * program's, registered without ito). */
bool itoi_coop_in_handler(itoi_worker_t *w)
{
    if (!w || !w->cur) return false;
    sigset_t now;
    uint64_t extra = 0;
    if (pthread_sigmask(SIG_BLOCK, NULL, &now) == 0) memcpy(&extra, &now, sizeof extra);
    extra &= ~itoi_rt.start_sigmask & ~(1ull << (SIGURG - 1));
    for (; extra != 0; extra &= extra - 1) {
        struct sigaction sa;
        int sig = __builtin_ctzll(extra) + 1;
        if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN) return true;
    }
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    const itoi_stack_t *st = w->cur->stack;
    if (st && sp - (uintptr_t)st->base < st->size) return false;
    stack_t ss;
    return sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK) != 0;
}

void ito_coop_yield_abi(void)
{
    itoi_worker_t *w = itoi_self_worker();
    if (!itoi_coop_due(w) || !w || !w->cur) return;
    itoi_tick_point(w);
    itoi_yield_worker(w);
}

void ito_coop_yield_full(void)
{
    itoi_worker_t *w = itoi_self_worker();
    if (!itoi_coop_due(w) || !w || !w->cur) return;
    itoi_tick_point(w);
    itoi_yield_worker_full(w, false);
}

/* A host that exports ito-cc's runtime fallback (compiler/itocc/fallback.py: weak flag,
 * budget and yields, linked into an executable built by ito-cc without the runtime).
 * Linked with -rdynamic (an interpreter that loads extensions: QuickJS's qjs), its
 * dynamic symbol table carries them, and the dynamic linker binds every later-loaded
 * object to the executable's definitions first: a dlopen()ed extension linked with -lito,
 * and libito itself, then share the executable's flag and budget (so libito's timer sets
 * the flag the extension reads), but the extension's yields went to the fallback, which
 * trapped ("a yield point was reached in a program linked without the ito runtime", SIGILL;
 * found by an outside tester, h74b, 2026-12-07). When this library's own yields have been
 * interposed so, the constructor below hands the fallback (through the executable's
 * ito_coop_handover, which -rdynamic exports too) the addresses of the real ones, by
 * hidden aliases no executable can take over; the fallback calls them from then on. The
 * check runs once, at load; nothing changes for a program linked with libito, whose yields
 * are these. The table's layout is the fallback's too (fallback.py's SOURCE). */
typedef struct ito_coop_handover {
    void (*abi)(void);  /* ito_coop_yield_abi: the fallback's minimal and ABI yields */
    void (*full)(void); /* ito_coop_yield_full */
} ito_coop_handover_t;
extern void itoi_coop_yield_abi_own(void) __attribute__((alias("ito_coop_yield_abi"), visibility("hidden")));
extern void itoi_coop_yield_full_own(void) __attribute__((alias("ito_coop_yield_full"), visibility("hidden")));
static const ito_coop_handover_t coop_handover_table = {itoi_coop_yield_abi_own, itoi_coop_yield_full_own};
/* exported (the library hides what it does not name; named ito_ as every export is, but not
 * declared in a header: only the fallback's source knows it), and weak: written through
 * the GOT, so into the executable's when that exports one, even with
 * -fno-semantic-interposition */
__attribute__((weak, visibility("default"))) const ito_coop_handover_t *ito_coop_handover;

__attribute__((constructor)) static void coop_handover(void)
{
    void (*bound)(void) = ito_coop_yield_abi; /* the symbol as the dynamic linker bound it */
    __asm__("" : "+r"(bound));                /* not folded into the alias's address */
    if (bound != itoi_coop_yield_abi_own)
        __atomic_store_n(&ito_coop_handover, &coop_handover_table, __ATOMIC_RELEASE);
}

#if defined(ITOI_ASAN) || defined(ITOI_TSAN)
#if defined(__clang__) && __clang_major__ >= 19
__attribute__((preserve_none))
#endif
void ito_coop_yield(void)
{
    ito_coop_yield_abi();
}
#endif
