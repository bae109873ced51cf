/**
 * @file
 * @brief Co-operative yields for compiler-inserted (or hand-placed) yield points.
 *
 * A timer sets ito_coop_flag on a worker when its slice ends; code checks the flag (one
 * load, a predicted branch) and calls a yield only when it is set. Three yields, which
 * differ only in what the switch saves:
 *   ito_coop_yield       minimal: the caller spills exactly its live registers
 *                        (clang >= 19: declared preserve_none; gcc: use ITO_COOP_YIELD_MIN(),
 *                        an inline asm call that clobbers every register);
 *   ito_coop_yield_abi   the SysV ABI switch (callee-saved GPRs, MXCSR, x87 CW);
 *   ito_coop_yield_full  the whole vector state (XSAVE), as preemption pays, and the GPRs
 *                        of the switch (an ordinary C call: the caller-saved ones are not kept).
 * All three are no-ops outside a ULT. ito_noyield marks functions the plugin must skip.
 *
 * Signal handlers: ito-cc leaves out of its points only the handlers it sees registered in
 * the same file (compiler/README.md); a handler registered elsewhere, and what it calls,
 * gets points. A yield that the flag or an expired budget asked for does not switch
 * inside a signal handler of the program: it is told, as the signal tick tells it
 * (preempt.h), by the thread's mask blocking a signal the program has a handler for that
 * the workers did not block at their start (the kernel blocks a handler's own signal
 * while it runs), or by the stack pointer being on the thread's alternate signal stack
 * (SA_ONSTACK). The flag is cleared and the budget refilled, so the yield comes at a
 * point a quantum later, as a deferred tick's does. Not told apart: a handler installed
 * with SA_NODEFER, an empty sa_mask and no SA_ONSTACK, and one of SIGURG (the tick's
 * signal, which the mask test leaves out) without SA_ONSTACK (mark them ito_noyield).
 * A ULT that blocks a signal it has a handler for is taken for one: its yields wait until
 * it unblocks it (one that blocks a signal it takes by sigwait or a signalfd still
 * switches). The test costs a system call on every due yield (rt_sigprocmask, and
 * sigaltstack off the ULT's own stack), none on the check's fast path nor on a call
 * without a due flag or budget (a yield by hand), which must not come from a handler.
 */
#ifndef ITO_COOP_H
#define ITO_COOP_H

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/** Set (non-zero) by the timer when the running ULT's slice has ended; per kernel thread. */
#ifdef __cplusplus
extern thread_local volatile int ito_coop_flag;
#else
extern _Thread_local volatile int ito_coop_flag;
#endif

/** A countdown of estimated instructions, per kernel thread: code built with
 * `ito-cc --ito-check=budget` subtracts at each yield point what ran since the previous
 * one and yields when it goes negative; every compiled yield refills it with the quantum
 * (ito_coop_set_budget). No timer writes it. */
#ifdef __cplusplus
extern thread_local volatile int ito_coop_budget;
#else
extern _Thread_local volatile int ito_coop_budget;
#endif

/** The quantum until set otherwise (ito_coop_set_budget, ITO_COOP_BUDGET). */
#define ITO_COOP_BUDGET_DEFAULT 50000
/** The largest quantum ito_coop_set_budget takes. */
#define ITO_COOP_BUDGET_MAX 1000000000L
/** The longest slice ito_coop_set_budget takes (1000 s). */
#define ITO_COOP_SLICE_MAX_NS 1000000000000ULL

/**
 * @brief Sets what code built with the budget check runs between yields: the quantum,
 * in the plugin's estimated instructions, and a slice in nanoseconds. When a ULT's budget
 * runs out it yields if slice_ns is 0; otherwise it looks at the clock and yields only if
 * slice_ns have passed since its worker's last such yield (so the quantum is then how
 * often it looks: a clock read per quantum). Not inside a preemption-safe region: there
 * the budget is refilled and the ULT goes on. Process-wide; takes effect at each worker's
 * next refill. The environment sets the same at ito_init (ITO_COOP_BUDGET,
 * ITO_COOP_SLICE_NS; docs/ENVIRONMENT.md). Code built with the flag check ignores both.
 * @param instructions 1 to ITO_COOP_BUDGET_MAX (default ITO_COOP_BUDGET_DEFAULT)
 * @param slice_ns 0 (yield at every expiry; the default) to ITO_COOP_SLICE_MAX_NS
 * @return ITO_OK; ITO_EINVAL if a value is out of range (nothing changes).
 * @contexts any thread, before or after ito_init.
 */
int ito_coop_set_budget(long instructions, unsigned long long slice_ns);

#if defined(__clang__) && __clang_major__ >= 19
/**
 * @brief The minimal yield: switches to the next ready ULT saving only rsp and rbp (the
 * caller, compiled with preserve_none, has spilled what it needs); clears ito_coop_flag.
 * A no-op outside a ULT. Returns nothing.
 * @contexts any code (a no-op outside a ULT); in a signal handler only as a due yield
 * point, which does not switch there (see the file's comment).
 */
__attribute__((preserve_none)) void ito_coop_yield(void);
#endif
/**
 * @brief The ABI yield: switches to the next ready ULT saving what the SysV ABI says a
 * callee keeps (callee-saved registers, MXCSR, x87 CW); clears ito_coop_flag. A no-op
 * outside a ULT. Without preserve_none (gcc, older clang), ito_coop_yield must not be
 * called as a C function (it keeps only rsp and rbp): use ITO_COOP_YIELD_MIN().
 * @contexts any code (a no-op outside a ULT); in a signal handler only as a due yield
 * point, which does not switch there (see the file's comment).
 */
void ito_coop_yield_abi(void);
/**
 * @brief The full yield: saves the whole vector state (XSAVE), as preemption pays;
 * clears ito_coop_flag. A no-op outside a ULT. It is an ordinary C function: like any
 * call it keeps the callee-saved registers, not the caller-saved ones (rax, rcx, rdx,
 * rsi, rdi, r8-r11), which it uses before its switch (the yield plugin calls it with the
 * C convention).
 * @contexts any code (a no-op outside a ULT); in a signal handler only as a due yield
 * point, which does not switch there (see the file's comment).
 */
void ito_coop_yield_full(void);

/** Marks a function the yield plugin must not instrument (noinline: inlined into an
 * instrumented caller, its body would get yield points). */
#define ito_noyield __attribute__((annotate("ito_noyield"), noinline))

/** The minimal yield from any compiler: skip the red zone, align the stack, call the
 * yield, and tell the compiler every register but rsp/rbp is clobbered so that it
 * spills exactly what is live here. */
#define ITO_COOP_YIELD_MIN()                                                          \
    __asm__ volatile("movq %%rsp, %%rax\n\t"                                          \
                     "subq $128, %%rsp\n\t"                                           \
                     "andq $-16, %%rsp\n\t"                                           \
                     "pushq %%rax\n\t"                                                \
                     "pushq %%rax\n\t"                                                \
                     "call ito_coop_yield@PLT\n\t"                                      \
                     "movq 8(%%rsp), %%rsp"                                           \
                     ::: "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10",  \
                       "r11", "r12", "r13", "r14", "r15", "memory", "cc",             \
                       "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", \
                       "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",    \
                       "xmm15")

/** A yield point by hand: one load of ito_coop_flag, and the ABI yield when it is set.
 * The load is relative to the kernel thread (%fs), so it reads the flag of the worker the
 * ULT runs on now, also in a loop that moved to another worker. ThreadSanitizer builds:
 * the instrumentation computes the flag's address once per call of the enclosing function,
 * so a loop whose ULT moved reports its checks against the old worker's copy (a false data
 * race); there, put the check in a small noinline function of its own. */
#define ITO_COOP_POINT()                                                              \
    do {                                                                              \
        if (__builtin_expect(ito_coop_flag, 0)) ito_coop_yield_abi();                 \
    } while (0)

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
