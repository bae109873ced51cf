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
