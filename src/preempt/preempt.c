/* preempt.c: timer preemption, preemption-safe regions and gang scheduling.
 *
 * Each worker has a POSIX timer aimed at its own kernel thread (SIGEV_THREAD_ID) that
 * delivers SIGURG every quantum. The handler runs on whatever stack the worker is on:
 *  - not in a ULT (scheduler context, a ZWT, a post action): nothing to preempt;
 *  - in a preemption-safe region: the switch is delayed; the first expiry is recorded
 *    (psafe_pending, psafe_since); ito_psafe_end() switches and charges the group; past
 *    the bound the ULT is preempted anyway (forced) and stays inside its region;
 *  - at an unsafe instruction (anything outside the executable's own code: libito,
 *    libc with its malloc and stdio locks, other libraries): deferred to the next tick;
 *  - otherwise: the ULT is pinned to this worker (so that code which cached a TLS
 *    address keeps working), the signal is unblocked and the full-save switch runs
 *    inside the handler. When the ULT is resumed, the handler returns and sigreturn
 *    restores the interrupted state.
 * Who touches what: a ULT's psafe fields are written by the ULT and read by the handler
 * on the same worker (volatile, no atomics needed: the handler interrupts the ULT);
 * statistics are per worker, owner-written (the handler runs on the owner). Gang
 * scheduling: worker 0's tick advances the running group; every worker's tick then
 * preempts a ULT of another group, and the scheduler's pick skips them (see gang.c). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <unwind.h>

#include "ito/coop.h"
#include "preempt_int.h"
#include "../core/sanitizer.h"

itoi_preempt_t itoi_pre;

/* The executable's own code: the only place a ULT may be interrupted and switched. */
static void exec_range(const struct dl_phdr_info *info, uintptr_t *lo_out, uintptr_t *hi_out)
{
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (a < lo) lo = a;
        if (a + ph->p_memsz > hi) hi = a + ph->p_memsz;
    }
    *lo_out = lo;
    *hi_out = hi;
}

/* The executable, and the kernel's vDSO (clock_gettime, gettimeofday, time, getcpu): its
 * code takes no lock and keeps no per-thread state (seqlock reads of the vvar page, retried
 * if they overlap an update), so a switch inside it is as safe as in the program, when
 * the program called it (vdso_caller_safe: libc calls it holding locks). Counted
 * unsafe, a loop that busy-waits on the clock (`while (now() < deadline)`), which spends
 * nearly all its time there, had ~97 % of its ticks deferred: at a 1 ms quantum, other
 * ULTs of its worker waited 140-650 ms (test_preempt_vdso). */
static int find_exe(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    itoi_preempt_t *p = data;
    uintptr_t vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
    uintptr_t ph = (uintptr_t)info->dlpi_phdr; /* the vDSO's headers are in its first page */
    if (vdso && ph >= vdso && ph < vdso + 4096) { /* (named linux-vdso.so.1 on x86-64) */
        exec_range(info, &p->vdso_lo, &p->vdso_hi);
        return 0;
    }
    if (info->dlpi_name && info->dlpi_name[0]) return 0; /* a shared object, not the program */
    exec_range(info, &p->exe_lo, &p->exe_hi);
    return 0; /* go on: the vDSO may come later */
}

/* The program's code and the vDSO, never while libito has called out to code there (its
 * clock reads in the vDSO, the allocator, which the program may define; itoi.h,
 * itoi_callout_depth): libito's frames are below, perhaps holding a spinlock
 * (test_preempt_vdso_lock, test_preempt_own_malloc). A PC in the vDSO is only a
 * candidate: vdso_caller_safe below decides by who called it. */
static inline int in_exe(uintptr_t pc) { return pc >= itoi_pre.exe_lo && pc < itoi_pre.exe_hi; }
static inline int in_vdso(uintptr_t pc) { return pc >= itoi_pre.vdso_lo && pc < itoi_pre.vdso_hi; }
enum { PC_UNSAFE, PC_EXE, PC_VDSO };
static inline int safe_pc(uintptr_t pc)
{
    if (itoi_callout_depth != 0) return PC_UNSAFE;
    return in_exe(pc) ? PC_EXE : in_vdso(pc) ? PC_VDSO : PC_UNSAFE;
}

/* The vDSO is safe only when the program called it, directly (time and gettimeofday are
 * resolved to it) or through a clock function of libc or libstdc++ that holds nothing
 * (clock_gettime; std::chrono's steady_clock::now and system_clock::now). libito is not
 * its only caller that holds a lock (test_preempt_vdso_lock): glibc's syslog reads the
 * clock holding syslog_lock, and a tick there switched the ULT out with the lock held; the
 * next ULT of its worker to call syslog blocked the kernel thread on it, and the other
 * worker's soon after (16 ULTs calling syslog, 2 workers, 100 us quantum: hung in 6 runs
 * of 6 within seconds; outside tester h76c: test_preempt_vdso_libc). So the handler
 * unwinds the interrupted stack (libgcc's unwinder, whose look-up of the unwind tables,
 * _dl_find_object, takes no lock) past the vDSO's frames and those clock functions', and
 * the switch is safe only when the first other frame is the program's. Without the
 * std::chrono pair, a C++ loop busy-waiting on steady_clock had nearly all its ticks
 * deferred again (224 of 226 at a 1 ms quantum), as test_preempt_vdso's C loop had before
 * the vDSO counted. Only a tick that lands in the vDSO pays for the unwinding; with too
 * little of the ULT's stack left for it, the tick is deferred, and a frame the unwinder
 * cannot pass counts as unsafe. Clock functions of libraries loaded after the enable
 * (dlopen) are not known: their ticks in the vDSO are deferred. */
#define ITOI_CLOCK_FNS 3
static struct {
    uintptr_t lo, hi;
} clock_fns[ITOI_CLOCK_FNS]; /* found at enable */

static _Unwind_Reason_Code first_frame_only(struct _Unwind_Context *ctx, void *arg)
{
    (void)ctx;
    (void)arg;
    return _URC_END_OF_STACK;
}

/* At enable: the clock functions, and one unwind, so that the unwinder's own one-time
 * set-up (a pthread_once in libgcc) is not first run inside the handler. */
static void find_clock_fns(void)
{
    _Unwind_Backtrace(first_frame_only, NULL);
    void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    void *fn[ITOI_CLOCK_FNS] = {
        libc ? dlsym(libc, "clock_gettime") : NULL,
        dlsym(RTLD_DEFAULT, "_ZNSt6chrono3_V212steady_clock3nowEv"), /* if libstdc++ is loaded */
        dlsym(RTLD_DEFAULT, "_ZNSt6chrono3_V212system_clock3nowEv"),
    };
    for (int i = 0; i < ITOI_CLOCK_FNS; i++) {
        Dl_info di;
        const ElfW(Sym) *sym = NULL;
        clock_fns[i].lo = clock_fns[i].hi = 0;
        if (fn[i] && dladdr1(fn[i], &di, (void **)&sym, RTLD_DL_SYMENT) && sym && di.dli_saddr) {
            clock_fns[i].lo = (uintptr_t)di.dli_saddr;
            clock_fns[i].hi = clock_fns[i].lo + (uintptr_t)sym->st_size;
        }
    }
    if (libc) dlclose(libc);
}

static int in_clock_fn(uintptr_t pc)
{
    for (int i = 0; i < ITOI_CLOCK_FNS; i++)
        if (pc >= clock_fns[i].lo && pc < clock_fns[i].hi) return 1;
    return 0;
}

typedef struct vdso_walk {
    uintptr_t rip; /* the interrupted instruction */
    int found, safe, frames;
} vdso_walk_t;

static _Unwind_Reason_Code vdso_walk_frame(struct _Unwind_Context *ctx, void *arg)
{
    vdso_walk_t *wk = arg;
    int before = 0;
    uintptr_t ip = (uintptr_t)_Unwind_GetIPInfo(ctx, &before);
    if (++wk->frames > 24 || ip == 0) return _URC_END_OF_STACK;
    if (!wk->found) { /* the handler's own frames and the signal's trampoline */
        wk->found = before && ip == wk->rip;
        return _URC_NO_REASON;
    }
    uintptr_t pc = before ? ip : ip - 1; /* a return address: the call is just before */
    if (in_vdso(pc) || in_clock_fn(pc)) return _URC_NO_REASON;
    wk->safe = in_exe(pc);
    return _URC_END_OF_STACK;
}

#define ITOI_VDSO_UNWIND_ROOM 16384 /* bytes of the ULT's stack the unwinder may use */

static int vdso_caller_safe(itoi_ult_t *t, uintptr_t rip)
{
    char here;
    if (t->stack && (uintptr_t)&here - (uintptr_t)t->stack->base < ITOI_VDSO_UNWIND_ROOM) return 0;
    vdso_walk_t wk = {.rip = rip};
    _Unwind_Backtrace(vdso_walk_frame, &wk);
    return wk.found && wk.safe;
}

/* Signals 1..64 of a mask (glibc keeps them in the first word, as the kernel's sigset). */
static inline uint64_t mask_word(const sigset_t *s)
{
    uint64_t m;
    memcpy(&m, s, sizeof m);
    return m;
}

/* The interrupted code blocked a signal that the workers do not block by themselves: it is
 * (most likely) a signal handler of the program, which the kernel entered with its signal
 * blocked. Its PC may be in the executable while the code it interrupted is not: a tick
 * delivered with, or during, a SIGALRM handler that had interrupted malloc found the handler
 * "safe", switched the ULT out holding malloc's arena lock (or in the middle of its
 * thread cache), and the next ULT's malloc hung or aborted ("double free detected").
 * Also conservative for a ULT that blocks a signal itself (a critical section).
 * A handler installed with SA_NODEFER and an empty sa_mask blocks nothing; if it also has
 * SA_ONSTACK it runs on the thread's alternate signal stack, which the kernel describes
 * in uc_stack (its place and size; the flags do not say whether the interrupted code was
 * on it): the interrupted stack pointer inside it tells. Switched out there, the
 * ULT's frames stayed on the worker's one alternate stack, which the next signal on that
 * worker (a stack overflow's SIGSEGV, the program's own) overwrote from the top
 * (test_preempt_in_handler, part 2). A handler with SA_NODEFER, no mask and no
 * SA_ONSTACK cannot be told from the code it interrupted: preempt.h says so. */
static inline int in_handler(const ucontext_t *uc)
{
    uint64_t extra = mask_word(&uc->uc_sigmask) & ~itoi_pre.base_mask;
    if ((extra & ~(1ull << (SIGURG - 1))) != 0) return 1;
    uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP], lo = (uintptr_t)uc->uc_stack.ss_sp;
    return !(uc->uc_stack.ss_flags & SS_DISABLE) && sp - lo < uc->uc_stack.ss_size;
}

/* A region delayed one worker's switch: the group used extra_ns of one processor, i.e.
 * extra_ns / workers of the whole machine, which is what it sits out of its gang turns.
 * (A gang turn extended by a region is charged whole, in gang.c.) Without gang scheduling
 * there are no turns to sit out: the time is only counted. Kept as debt, it made the group
 * sit out turns once gangs were enabled later, for overruns from before (0 % of the CPU
 * for the first 200 ms after 270 ms of such debt: test_preempt_psafe_debt). */
static void charge(itoi_ult_t *t, uint64_t extra_ns, int forced)
{
    itoi_group_t *g = itoi_group_of(t);
    if (!g) return;
    atomic_fetch_add(&g->st.delay_ns, extra_ns);
    if (ITOI_PRE_GET(gang)) atomic_fetch_add(&g->debt_ns, extra_ns / (uint64_t)itoi_rt.nworkers);
    if (forced) atomic_fetch_add(&g->st.forced, 1);
}

/* The set holding only the tick's signal. */
static sigset_t urg_set(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGURG);
    return set;
}

/* The CPU time of the calling kernel thread (async-signal-safe). */
static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A tick inside a preemption-safe region: the first delays the switch (pending from now);
 * later ones keep delaying it until the bound. Returns 1 while delayed, 0 at the bound,
 * which itoi_psafe_count (preempt_int.h) keeps: max_delay_quanta quanta of CPU time that
 * the region ran, each tick counting at most one. */
static int psafe_delay_at(itoi_pworker_t *pw, itoi_ult_t *t, uint64_t now, int in_kernel)
{
    int first = !ITOI_PSAFE_PENDING(t);
    int delayed = itoi_psafe_count(t, cpu_ns(), in_kernel, ITOI_PRE_GET(quantum_ns), ITOI_PRE_GET(max_delay_ns));
    if (first) {
        ITOI_PSAFE_SINCE(t) = now;
        ITOI_BUMP(pw->st.delayed);
        if (itoi_group_of(t)) atomic_fetch_add(&(itoi_group_of(t))->st.delayed, 1);
    }
    return delayed;
}

/* The bound was reached: the switch happens inside the region; charge the delay. */
static void psafe_force(itoi_pworker_t *pw, itoi_ult_t *t, uint64_t now)
{
    ITOI_BUMP(pw->st.forced);
    uint64_t extra = now - ITOI_PSAFE_SINCE(t);
    atomic_fetch_add(&pw->st.delay_ns, extra);
    charge(t, extra, 1);
    ITOI_PSAFE_PENDING(t) = 0;
}

/* FLAG mode: returns 1 while the region delays the switch, else forces it (0). */
static int psafe_delay(itoi_pworker_t *pw, itoi_ult_t *t, int in_kernel)
{
    uint64_t now = itoi_now_ns();
    if (psafe_delay_at(pw, t, now, in_kernel)) return 1;
    psafe_force(pw, t, now);
    return 0;
}

/* Whether the tick found its thread in a system call: waiting in the kernel, entering
 * it, or just back from it. For a call that the handler interrupts and that restarts
 * (SA_RESTART, or restart_syscall), the kernel has moved the saved RIP back to the
 * `syscall` instruction (0f 05) before the handler runs; a call that ended (it returned,
 * failed with EINTR, or was woken, e.g. a futex wait by the unlock it waited for) leaves
 * RIP just past it: the signal became pending while the thread was in the kernel, and
 * is delivered on the way out. A ULT waiting for a contended pthread mutex cycles
 * through such wake-ups, and its ticks land there. The code bytes are read only within
 * RIP's own page (x86 code is readable). Not instrumented: the bytes are code, not data
 * the sanitizers track. */
__attribute__((no_sanitize("address", "thread", "undefined"))) static int in_syscall(const ucontext_t *uc)
{
    const unsigned char *ip = (const unsigned char *)uc->uc_mcontext.gregs[REG_RIP];
    uintptr_t off = (uintptr_t)ip & 4095u;
    if (off != 4095u && ip[0] == 0x0f && ip[1] == 0x05) return 1;
    return off >= 2 && ip[-2] == 0x0f && ip[-1] == 0x05;
}

/* Whether the ULT waited in the kernel since this worker's previous tick inside a region:
 * a tick in or just past a system call, and the thread has been switched out voluntarily
 * (blocked: a futex, a read, a sleep) since. A tick just past a call that never waited is
 * not one: under CPU contention the kernel deschedules a thread at a system call's return
 * (on EEVDF a call that reads the thread's CPU clock ends a used-up slice there), and the
 * expirations that passed meanwhile are delivered right past `syscall`. Taken for a wait,
 * they started the count again at every descheduling: a region that read its CPU clock once
 * per 4096 compiled yield points was never forced, and with gangs the other group got
 * nothing for the whole region (test_psafe_syscall_bound; h61c). One getrusage per tick
 * inside a region. */
static int waited_in_kernel(itoi_pworker_t *pw, const ucontext_t *uc)
{
    struct rusage ru;
    if (syscall(SYS_getrusage, RUSAGE_THREAD, &ru) != 0) return in_syscall(uc); /* as before */
    uint64_t v = (uint64_t)ru.ru_nvcsw;
    int waited = v != pw->nvcsw;
    pw->nvcsw = v;
    return waited && in_syscall(uc);
}

static void on_tick(int sig, siginfo_t *si, void *ucv)
{
    (void)sig;
    (void)si;
    int saved_errno = errno;
    itoi_worker_t *w = itoi_tls_worker;
    /* One load of the slot: ito_preempt_disable on another thread may clear it between
     * two (a second load returned NULL while the first had said non-NULL). */
    itoi_pworker_t *pw = w ? itoi_pworker(w) : NULL;
    if (!pw) goto out;
    ITOI_BUMP(pw->st.ticks);
    if (w->index == 0 && ITOI_PRE_GET(gang)) itoi_gang_tick();
    if (ITOI_PRE_GET(mode) == ITO_PREEMPT_FLAG) {
        /* A compiled yield point clears the flag when it switches: a flag the last tick
         * set and that is clear now was a preemption (counted one tick late). */
        ITOI_SAN_IGNORE_BEGIN(); /* the flag: see sanitizer.h */
        int flag = ito_coop_flag;
        ITOI_SAN_IGNORE_END();
        if (pw->flag_set && !flag) {
            ITOI_BUMP(pw->st.preemptions);
            /* the group of the ULT that ran when the flag was set, if it still lives
             * (group_tab is static: a group destroyed meanwhile is memory still, and a new
             * group created in its slot is at the same address; counting on it gave a group
             * that never had a member the old one's preemption: test_preempt_flag_group_reuse) */
            itoi_group_t *fg = pw->flag_group;
            if (fg && atomic_load_explicit(&fg->gen, memory_order_relaxed) == pw->flag_gen)
                atomic_fetch_add(&fg->st.preemptions, 1);
        }
        pw->flag_set = 0;
        /* In the scheduler context (an idle worker's tick, held while it slept and
         * delivered as it wakes) there is nothing to preempt, as in SIGNAL mode below.
         * Setting the flag there made the ULT the worker woke for yield at its first
         * compiled yield point, having run nothing of its quantum, and counted that a
         * preemption: a ULT sleeping 1 ms at a 1 ms quantum was "preempted" at each of
         * 1000 wake-ups (outside tester h73f, 2026-12-07). */
        if (!w->cur) goto out;
        /* Inside a preemption-safe region the flag stays clear (the region's end
         * switches) until the bound: then it is set, and the next check switches. */
        if (ITOI_PSAFE(w->cur) && psafe_delay(pw, w->cur, waited_in_kernel(pw, ucv))) goto out;
        pw->flag_set = 1;
        pw->flag_group = itoi_group_of(w->cur);
        if (pw->flag_group) pw->flag_gen = atomic_load_explicit(&pw->flag_group->gen, memory_order_relaxed);
        ITOI_SAN_IGNORE_BEGIN();
        ito_coop_flag = 1;
        ITOI_SAN_IGNORE_END();
        goto out;
    }
    itoi_ult_t *t = w->cur;
    if (!t) goto out;
    uint64_t now = itoi_now_ns();
    int forced = 0, leave = 0;
    if (ITOI_PRE_GET(gang) && itoi_group_of(t)) {
        /* Gang scheduling decides at the group's level (gang.c): a ULT of the running
         * group keeps its worker while in a region (the turn is extended, up to its
         * bound); a ULT of another group leaves now (off its worker even if nothing else
         * is ready here), unless it is inside a region: then it stays, under the same
         * per-ULT bound as without gangs, and leaves at the region's end. Making it leave
         * inside its region when the turn's bound forced the turn to end parked a holder
         * of a pthread mutex while the next group's ULTs blocked their workers' threads
         * on that mutex: the program hung (16 ULTs in two groups on 4 workers, 6 runs in 6). */
        if (itoi_group_of(t) == atomic_load(&itoi_gang_group)) {
            if (ITOI_PSAFE(t)) goto out;
            goto preempt;
        }
        leave = 1;
    }
    if (ITOI_PSAFE(t)) {
        if (psafe_delay_at(pw, t, now, waited_in_kernel(pw, ucv))) goto out;
        forced = 1; /* the bound is reached: preempt anyway */
    }
preempt:;
    /* Compiled yield points switch at their next check (not inside a region: a check
     * there would switch a ULT that holds a kernel lock) */
    ito_coop_flag = 1;
    ucontext_t *uc = ucv;
    uintptr_t rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    int where = safe_pc(rip);
    if (where == PC_UNSAFE || in_handler(uc) || (where == PC_VDSO && !vdso_caller_safe(t, rip))) {
        ITOI_BUMP(pw->st.deferred);
        goto out;
    }
    if (forced) psafe_force(pw, t, now);
    /* Pin to this worker while switched out from inside the handler. */
    int16_t bound = t->bound;
    t->bound = (int16_t)w->index;
    itoi_tick_point(w); /* the scheduler context's sources at this point (sched.c) */
    /* The switch is now: the flag was for a tick that cannot switch here. Left set, it made
     * the next ULT yield at its first compiled yield point, so a ULT with yield points
     * beside one preempted by signals got one loop iteration per quantum (292 against 47
     * million in 0.3 s; found by a test of the group counters, 2026-12-03). */
    ito_coop_flag = 0;
    sigset_t set = urg_set();
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    /* Counted once it is known to have been switched out: with nothing else ready the
     * ULT goes on (a lone spinner was counted a preemption per quantum and never switched:
     * test_preempt_lone_stats). The records outlive a disable (a late count is harmless). */
    bool switched = itoi_yield_worker_full(w, leave);
    t->bound = bound;
    /* The signal mask is the worker's, not the ULT's (thread.h), but the return from this
     * handler installs the mask the ULT was interrupted with (uc_sigmask): a block or unblock
     * that another ULT made on this worker while this one was switched out was undone when
     * it resumed (a ULT that blocked SIGUSR1 and yielded found it open again, no ULT having
     * opened it: test_preempt_mask_resume). Hand the worker's mask of now to the return; the
     * kernel reads the first 64 bits of uc_sigmask (its own sigset_t is that size). */
    if (switched) {
        sigset_t now_mask;
        if (pthread_sigmask(SIG_BLOCK, NULL, &now_mask) == 0)
            memcpy(&uc->uc_sigmask, &now_mask, sizeof(uint64_t));
        ITOI_BUMP(pw->st.preemptions);
        if (itoi_group_of(t)) atomic_fetch_add(&(itoi_group_of(t))->st.preemptions, 1);
    }
out:
    errno = saved_errno;
}

/* A sleeping worker has nothing to preempt, yet its timer went on waking it every quantum
 * (a 100 us quantum: ~10,000 wake-ups a second of an idle worker, each a trip through the
 * kernel and the handler; beside a sqlite3 shell in one ULT the idle worker spent ~35 % of
 * a CPU in the kernel on them). So a worker holds SIGURG blocked while it sleeps: one
 * expiry becomes pending, and Linux does not re-arm a periodic POSIX timer while its signal
 * is pending, so the timer stays quiet until the worker wakes and the tick is delivered (in the
 * scheduler context: nothing to preempt, in either mode; a FLAG-mode tick there leaves the
 * flag clear, test_preempt_flag_idle_wake). Not with gang
 * scheduling: worker 0's tick advances the groups' turns, which a sleeping worker 0 must
 * not hold up. The mask is the worker thread's own, so no other thread is involved. Cost:
 * two rt_sigprocmask calls per sleep, only while preemption is on (a sleep already costs a
 * futex or epoll wait and the wake-up). */
static _Atomic int hold_while_asleep; /* set at enable (without gang), cleared at disable */
static _Thread_local bool urg_held __attribute__((tls_model("initial-exec"))); /* no __tls_get_addr */

static bool tick_hold(itoi_worker_t *w)
{
    (void)w;
    if (!atomic_load(&hold_while_asleep)) return false; /* seq_cst: see ito_preempt_enable */
    sigset_t set = urg_set(), old;
    /* held by us only if it was open: a mask the program set stays as it was */
    urg_held = pthread_sigmask(SIG_BLOCK, &set, &old) == 0 && !sigismember(&old, SIGURG);
    return false;
}

static void tick_release(itoi_worker_t *w)
{
    (void)w;
    if (!urg_held) return;
    urg_held = false;
    sigset_t set = urg_set();
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

static int arm(itoi_worker_t *w, uint64_t quantum_ns)
{
    itoi_pworker_t *pw = itoi_pworker(w);
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIGURG;
    sev._sigev_un._tid = atomic_load(&w->tid);
    if (timer_create(CLOCK_MONOTONIC, &sev, &pw->timer) != 0) return ITO_EIO;
    struct itimerspec its;
    its.it_interval.tv_sec = (time_t)(quantum_ns / 1000000000u);
    its.it_interval.tv_nsec = (long)(quantum_ns % 1000000000u);
    its.it_value = its.it_interval;
    if (timer_settime(pw->timer, 0, &its, NULL) != 0) {
        timer_delete(pw->timer);
        return ITO_EIO;
    }
    pw->armed = 1;
    return ITO_OK;
}

/* Enable, disable, the statistics and finalize's teardown are serialized by pre_lock, and
 * a caller that is not a worker enters the runtime while it touches the workers
 * (itoi_any_enter), so a foreign thread's call cannot race finalize's teardown. The SIGURG
 * handler is installed by enable and the program's put back by disable (handler_on: ours
 * is installed and old_sa holds the program's); the per-worker records (itoi_pre.pw) stay
 * allocated from the first enable until finalize, because a tick delivered just before a
 * disable may still be in the handler on a worker, and a later enable reuses them. */
static pthread_mutex_t pre_lock = PTHREAD_MUTEX_INITIALIZER;
static bool handler_on;

static void disable_locked(void)
{
    atomic_store(&hold_while_asleep, 0);
    int n = itoi_rt.nworkers;
    for (int i = 0; i < n; i++) {
        itoi_pworker_t *pw = &itoi_pre.pw[i];
        if (pw->armed) timer_delete(pw->timer);
        pw->armed = 0;
    }
    if (itoi_pre.gang) itoi_gang_stop();
    for (int i = 0; i < n; i++) __atomic_store_n(&itoi_rt.workers[i].slot[ITOI_WSLOT_PREEMPT], NULL, __ATOMIC_RELEASE);
    /* The per-worker counters stay (ito_preempt_stats after disabling; a later enable
     * counts on): finalize moves them into the totals. */
    if (handler_on) { /* a late tick finds the slot NULL; now the program's handler is back */
        /* ... unless the program installed a SIGURG handler of its own while preemption was
         * on (preempt.h): that one is the program's latest word, and putting back the one
         * ito had replaced at enable threw it away (found by an outside tester, h69f:
         * test_preempt_own_urg_kept). */
        struct sigaction cur;
        if (sigaction(SIGURG, NULL, &cur) != 0 || ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_tick))
            sigaction(SIGURG, &itoi_pre.old_sa, NULL);
        handler_on = false;
    }
    itoi_pre.on = 0;
}

static int enable_locked(const ito_preempt_config_t *cfg)
{
    if (itoi_pre.on) return ITO_ESTATE;
    unsigned q = cfg && cfg->quantum_us ? cfg->quantum_us : 10000;
    unsigned md = cfg && cfg->max_delay_quanta ? cfg->max_delay_quanta : 4;
    int mode = cfg ? cfg->mode : ITO_PREEMPT_SIGNAL;
    if (q < 100 || q > 10000000 || md > 1000 || (mode != ITO_PREEMPT_SIGNAL && mode != ITO_PREEMPT_FLAG) ||
        (cfg && cfg->gang != 0 && cfg->gang != 1)) /* (2 or -1 were taken for 1 until 2026-12-03) */
        return ITO_EINVAL;
    dl_iterate_phdr(find_exe, &itoi_pre);
    find_clock_fns();
#if defined(ITOI_TSAN) || defined(ITOI_ASAN)
    if (mode == ITO_PREEMPT_SIGNAL) {
        /* ThreadSanitizer runs signal handlers at its own safe points, outside the
         * interrupted code; AddressSanitizer's runtime (its malloc, its fiber-switch
         * bookkeeping) is linked into the executable, where the handler would take it for
         * the program's own code. A switch inside the handler is unsafe under both. */
        fprintf(stderr, "ito: signal preemption is not available under the sanitizers; "
                        "ITO_PREEMPT_FLAG is\n");
        return ITO_ENOSYS;
    }
#endif
    if (mode == ITO_PREEMPT_SIGNAL) {
        /* libito must not be inside the executable's code range (static linking). */
        uintptr_t self = (uintptr_t)(void *)&ito_preempt_enable;
        if (safe_pc(self) != PC_UNSAFE) {
            fprintf(stderr, "ito: signal preemption needs libito as a shared library (it is linked "
                            "statically into this program, so its code cannot be told from the "
                            "program's); use ITO_PREEMPT_FLAG or link -lito dynamically\n");
            return ITO_ENOSYS;
        }
    }
    int n = itoi_rt.nworkers;
    if (!itoi_pre.pw) { /* this runtime's first enable: it counts afresh */
        itoi_pworker_t *pw = calloc((size_t)n, sizeof(itoi_pworker_t));
        if (!pw) return ITO_ENOMEM;
        __atomic_store_n(&itoi_pre.pw, pw, __ATOMIC_RELEASE); /* gang.c's parked_pw reads it */
        memset(&itoi_pre.total, 0, sizeof itoi_pre.total);
    }
    ITOI_PRE_SET(quantum_ns, (uint64_t)q * 1000u);
    ITOI_PRE_SET(max_delay_ns, (uint64_t)md * 1000u * q);
    ITOI_PRE_SET(mode, mode);
    ITOI_PRE_SET(gang, cfg ? cfg->gang : 0);
    /* The signals the workers block by themselves: from a ULT, its worker's mask (the
     * caller's, preempt.h); from a foreign thread, whose mask need not be the workers' at
     * all, the mask the workers started with. The foreign caller's own mask was taken:
     * one with fewer signals blocked than the workers (a thread started before main
     * blocked SIGUSR1 for a signalfd) made every tick look like one inside a handler of the
     * program (3220 ticks, 3220 deferred, nothing preempted), one with more (a sigwait
     * thread blocking everything) hid the program's handlers (test_preempt_foreign_mask). */
    sigset_t cur;
    if (itoi_self_worker())
        itoi_pre.base_mask = pthread_sigmask(SIG_BLOCK, NULL, &cur) == 0 ? mask_word(&cur) : 0;
    else
        itoi_pre.base_mask = itoi_rt.start_sigmask;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_tick;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGURG, &sa, &itoi_pre.old_sa) != 0) return ITO_EIO;
    handler_on = true;
    for (int i = 0; i < n; i++)
        __atomic_store_n(&itoi_rt.workers[i].slot[ITOI_WSLOT_PREEMPT], (void *)&itoi_pre.pw[i], __ATOMIC_RELEASE);
    if (itoi_pre.gang)
        itoi_gang_start(); /* its hooks are in (enable registered them) */
    else
        atomic_store(&hold_while_asleep, 1); /* the sleep pair is in (enable registered it) */
    for (int i = 0; i < n; i++) {
        if (arm(&itoi_rt.workers[i], itoi_pre.quantum_ns) != ITO_OK) {
            itoi_pre.on = 1;
            disable_locked();
            return ITO_EIO;
        }
    }
    itoi_pre.on = 1;
    /* A worker asleep since before the hold was on sleeps with the signal open, and with
     * SA_RESTART its futex wait resumes after every tick without passing the hooks again:
     * wake the sleepers once, so that they go back to sleep through tick_hold. */
    if (atomic_load(&hold_while_asleep)) itoi_wake_all();
    return ITO_OK;
}

/* The tick hold around sleeps (which does nothing while hold_while_asleep is clear: with
 * gangs, and while preemption is off) and the clean-up at finalize, registered once per
 * process (itoi_mech_register). */
static itoi_mech_hooks_t preempt_hooks = {.presleep = tick_hold, .postsleep = tick_release, .fini = itoi_preempt_fini};

static int enable(const ito_preempt_config_t *cfg)
{
    /* A copy: the hooks registered here are those of the configuration enabled below. */
    ito_preempt_config_t copy, *c = NULL;
    if (cfg) {
        copy = *cfg;
        c = &copy;
    }
    /* Before pre_lock: teardown holds the finalizers' lock while it calls ours, which
     * takes pre_lock, so no fini hook is registered under pre_lock: gang scheduling's
     * hooks, which include one, are registered here too, not at its start (TSan reports
     * the inversion in test_preempt_region). */
    if (itoi_mech_register(&preempt_hooks) != ITO_OK || (c && c->gang == 1 && itoi_gang_register() != ITO_OK))
        return ITO_ENOMEM;
    pthread_mutex_lock(&pre_lock);
    int rc = enable_locked(c);
    pthread_mutex_unlock(&pre_lock);
    return rc;
}

/* A ZWT (a worker with no current ULT) may not toggle preemption (preempt.h): enable
 * and disable wait for pre_lock, a pthread mutex, and a ZWT must not wait. Until
 * 2026-12-05 both succeeded from one (found by an API audit). */
static bool in_zwt(void)
{
    itoi_worker_t *w = itoi_self_worker();
    return w && !w->cur;
}

int ito_preempt_enable(const ito_preempt_config_t *cfg)
{
    if (in_zwt()) return ITO_ENOTULT;
    ITOI_ANY_RETURN(ITO_ESTATE, enable(cfg));
}

static int disable(void)
{
    pthread_mutex_lock(&pre_lock);
    int rc = itoi_pre.on ? ITO_OK : ITO_ESTATE;
    if (itoi_pre.on) disable_locked();
    pthread_mutex_unlock(&pre_lock);
    return rc;
}

int ito_preempt_disable(void)
{
    if (in_zwt()) return ITO_ENOTULT;
    ITOI_ANY_RETURN(ITO_ESTATE, disable());
}

/* At teardown (the workers have stopped; no foreign thread is inside). */
void itoi_preempt_fini(void)
{
    pthread_mutex_lock(&pre_lock);
    if (itoi_pre.on) disable_locked();
    if (itoi_pre.pw)
        for (int i = 0; i < itoi_rt.nworkers; i++) itoi_preempt_add(&itoi_pre.total, &itoi_pre.pw[i].st);
    free(itoi_pre.pw); /* the totals stay readable until the next runtime's first enable */
    __atomic_store_n(&itoi_pre.pw, NULL, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&pre_lock);
}

void itoi_preempt_add(itoi_pstats_t *to, itoi_pstats_t *from)
{
    atomic_fetch_add(&to->ticks, atomic_load(&from->ticks));
    atomic_fetch_add(&to->preemptions, atomic_load(&from->preemptions));
    atomic_fetch_add(&to->deferred, atomic_load(&from->deferred));
    atomic_fetch_add(&to->delayed, atomic_load(&from->delayed));
    atomic_fetch_add(&to->delay_ns, atomic_load(&from->delay_ns));
    atomic_fetch_add(&to->forced, atomic_load(&from->forced));
}

int ito_preempt_stats(ito_preempt_stats_t *out)
{
    if (!out) return ITO_EINVAL;
    itoi_pstats_t s;
    memset(&s, 0, sizeof s);
    bool in;
    int entered = itoi_any_enter(&in); /* without a runtime: the last one's totals */
    pthread_mutex_lock(&pre_lock);
    itoi_preempt_add(&s, &itoi_pre.total);
    if (entered == ITO_OK && itoi_pre.pw)
        for (int i = 0; i < itoi_rt.nworkers; i++) itoi_preempt_add(&s, &itoi_pre.pw[i].st);
    pthread_mutex_unlock(&pre_lock);
    if (entered == ITO_OK) itoi_any_leave(in, ITO_OK);
    out->ticks = atomic_load(&s.ticks);
    out->preemptions = atomic_load(&s.preemptions);
    out->deferred = atomic_load(&s.deferred);
    out->delayed = atomic_load(&s.delayed);
    out->delay_ns = atomic_load(&s.delay_ns);
    out->forced = atomic_load(&s.forced);
    return ITO_OK;
}

/* ---- preemption-safe regions ---- */

/* A gang ULT whose group's turn is over (its tick was deferred, or a FLAG-mode check has
 * not come yet) waits for its next turn before it enters a region: inside one it would
 * keep its worker (on_tick) while the next group runs. A turn can still end between this
 * look and the region's first instruction; the per-ULT bound covers that window. */
static itoi_worker_t *gang_region_entry(itoi_worker_t *w, itoi_ult_t *t)
{
    for (;;) {
        void *run = atomic_load(&itoi_gang_group);
        if (!run || run == (void *)itoi_group_of(t)) return w;
        itoi_yield_worker(w); /* the pick filter parks it until its turn (gang.c) */
        w = itoi_self_worker();
    }
}

int ito_psafe_begin(void)
{
    itoi_worker_t *w = itoi_self_worker();
    if (ITOI_UNLIKELY(!w || !w->cur)) return ITO_ENOTULT;
    itoi_ult_t *t = w->cur;
    /* Not in code libito called out to (the program's allocator, which libito may call
     * holding a spinlock: itoi_callout_depth): waiting there for the turn parks the holder
     * (as the switch at ito_psafe_end would, below) */
    if (ITOI_UNLIKELY(ITOI_PRE_GET(gang)) && ITOI_PSAFE(t) == 0 && itoi_group_of(t) && itoi_callout_depth == 0)
        w = gang_region_entry(w, t);
    ITOI_PSAFE(t)++;
    itoi_pworker_t *pw;
    if (ITOI_UNLIKELY(ito_coop_flag) && ITOI_PSAFE(t) == 1 && (pw = itoi_pworker(w)) != NULL) {
        /* A tick set the flag before the region began and no check has taken it yet;
         * inside the region it would switch at the first check. Take it back: the switch
         * is delayed as if the tick had come now (the handler, which interrupts this
         * thread only, sees the region from the increment above on). */
        ito_coop_flag = 0;
        pw->flag_set = 0;
        /* With gang scheduling a running group's regions extend its turn (gang.c) and its
         * ULTs' own ticks leave them alone, so nothing is pending per ULT: counting a delay
         * here (the group's `delayed`) left it without its time, since ito_psafe_end settles
         * a gang ULT's region through the turn only (test_preempt part 6, 2 runs in 25 under
         * two CPU hogs: delayed counted, delay_ns never). */
        if (!(ITOI_PRE_GET(gang) && itoi_group_of(t))) (void)psafe_delay_at(pw, t, itoi_now_ns(), 0);
    }
    return ITO_OK;
}

/* A region with a delayed switch has ended: clear the pending mark, count the delay on
 * the worker, and return it (the caller charges it to the ULT's group). */
static uint64_t settle_pending(itoi_worker_t *w, itoi_ult_t *t)
{
    ITOI_PSAFE_PENDING(t) = 0;
    uint64_t extra = itoi_now_ns() - ITOI_PSAFE_SINCE(t);
    itoi_pworker_t *pw = itoi_pworker(w);
    if (pw) atomic_fetch_add(&pw->st.delay_ns, extra);
    return extra;
}

int ito_psafe_end(void)
{
    itoi_worker_t *w = itoi_self_worker();
    if (ITOI_UNLIKELY(!w || !w->cur)) return ITO_ENOTULT;
    itoi_ult_t *t = w->cur;
    if (ITOI_UNLIKELY(ITOI_PSAFE(t) == 0)) return ITO_ESTATE;
    if (--ITOI_PSAFE(t) == 0 && ITOI_UNLIKELY(ITOI_PRE_GET(gang) && itoi_group_of(t))) {
        itoi_group_t *g = itoi_group_of(t);
        /* FLAG mode delays a gang ULT's own switch too (the tick's psafe_delay): its time
         * is the group's delay, while the turn's compensation stays gang.c's. */
        if (ITOI_UNLIKELY(ITOI_PSAFE_PENDING(t))) {
            uint64_t extra = settle_pending(w, t);
            /* In signal mode a gang ULT's own switch is delayed only once its group's turn
             * is over (on_tick leaves the running group's regions to the turn), so all of
             * this is time it kept its worker in other groups' turns: charged like any
             * delayed switch. Counted only, the group with 14 ms regions at a 2 ms quantum
             * (bound 4) got about 4 times the other group's CPU: its turn was charged for the
             * extension, then its ULT ran on through the turns that paid that debt back
             * (test_preempt_gang_region_hold; h61c). In FLAG mode the tick delays the switch
             * from the region's first tick on, while the turn's extension is charged in
             * gang.c: counted only. */
            if (ITOI_PRE_GET(mode) == ITO_PREEMPT_SIGNAL) charge(t, extra, 0);
            else atomic_fetch_add(&g->st.delay_ns, extra);
        }
        if (atomic_load_explicit(&g->turn_delayed, memory_order_relaxed)) itoi_gang_region_ended(g);
        /* Its turn is over (ended by the region's end above, or forced while the ULT was
         * inside, which kept it here): leave now. */
        void *run = atomic_load(&itoi_gang_group);
        if (run && run != (void *)g && itoi_callout_depth == 0) itoi_yield_worker(w);
        return ITO_OK;
    }
    if (ITOI_PSAFE(t) == 0 && ITOI_UNLIKELY(ITOI_PSAFE_PENDING(t))) {
        /* The quantum expired inside the region: switch now, and charge the extra time.
         * Not inside a call out of libito (itoi.h, itoi_callout_depth): a region in the
         * program's allocator, which preempt.h advises for its lock, ended there while
         * libito held a spinlock of its own (the ZWT device table's, around a calloc), and
         * the switch parked the holder: the next ULT of its worker spun on the lock for ever
         * (outside tester h76c: test_preempt_psafe_callout). The next tick switches it instead. */
        charge(t, settle_pending(w, t), 0);
        if (itoi_callout_depth == 0) itoi_yield_worker(w);
    }
    return ITO_OK;
}
