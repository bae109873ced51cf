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
 * due (once a quantum), never on the checks' fast path. Found by an outside tester,
 * h66d, 2026-12-06 (test_coop_vfork). */
bool itoi_coop_other_thread(itoi_worker_t *w)
{
    if (!w) return false;
    int tid = atomic_load_explicit(&w->tid, memory_order_relaxed);
    return tid != 0 && tid != (int)syscall(SYS_gettid);
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

#if defined(ITOI_ASAN) || defined(ITOI_TSAN)
#if defined(__clang__) && __clang_major__ >= 19
__attribute__((preserve_none))
#endif
void ito_coop_yield(void)
{
    ito_coop_yield_abi();
}
#endif
